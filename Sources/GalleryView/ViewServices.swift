import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import GalleryViewRules
import Hummingbird
import ServiceLifecycle

/// An error a route answers with: its status and a JSON message the page shows.
package enum ViewError: Error, HTTPResponseError, CustomStringConvertible {
  case notFound(String)
  case badRequest(String)
  case forbidden(String)
  case conflict(String)
  case busy(String)
  case tooLarge(String)

  package var description: String {
    switch self {
    case .notFound(let text), .badRequest(let text), .forbidden(let text), .conflict(let text), .busy(let text),
      .tooLarge(let text):
      text
    }
  }

  package var status: HTTPResponse.Status {
    switch self {
    case .notFound: .notFound
    case .badRequest: .badRequest
    case .forbidden: .forbidden
    case .conflict: .conflict
    case .busy: .serviceUnavailable
    case .tooLarge: .contentTooLarge
    }
  }

  package func response(from request: Request, context: some RequestContext) throws -> Response {
    Self.response(status: status, message: description)
  }

  static func response(status: HTTPResponse.Status, message: String) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-store"
    struct Answer: Encodable { var error: String }
    let body = (try? JSONEncoder().encode(Answer(error: message))) ?? Data()
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }
}

/// Adds the security headers to every response, and keeps the API's answers out of caches
/// unless a route says otherwise. The outermost middleware: refusals get them too.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var response = try await next(request, context)
    for (name, value) in ViewAccess.securityHeaders { response.headers[.init(name)!] = value }
    if request.uri.path.hasPrefix("/api/"), response.headers[.cacheControl] == nil {
      response.headers[.cacheControl] = "no-store"
    }
    return response
  }
}

/// Answers what a route throws with a status and a JSON message the page shows.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do { return try await next(request, context) } catch let error as ViewError {
      return ViewError.response(status: error.status, message: error.description)
    } catch let error as HTTPError {
      return ViewError.response(status: error.status, message: error.body ?? "\(error.status)")
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
      return ViewError.response(status: error.status, message: "the request is larger than this server takes")
    } catch {
      return ViewError.response(status: ViewError.status(of: error), message: SystemErrorText.describe(error))
    }
  }
}

extension ViewError {
  /// What an error the library threw answers a page with. What the library refuses says
  /// why: what is not there is 404, a request that asks the impossible 400, a document or
  /// an image that refuses the edit 409. A failure of the machine, not of the request, is
  /// the server's: a full disk 507 (Insufficient Storage), anything else 500.
  static func status(of error: any Error) -> HTTPResponse.Status {
    switch error {
    case let error as DocumentError:
      switch error {
      case .notFound, .itemNotFound: return .notFound
      case .exists: return .conflict
      case .badName: return .badRequest
      case .notAGallery, .corrupt, .invalid, .damaged, .unsupportedFormat: return .conflict
      case .saveFailed(_, let cause), .io(let cause): return status(of: cause)
      }
    case is DocumentHistory.Failure, is ModelHistory.Beyond: return .notFound
    case is ContactSheet.TooLarge, is MetadataEdit.Refusal: return .badRequest
    case is ModelValidation.Failure, is JSONReadError, is ChangeMismatch, is ImageRefusal, is DocumentConflict.Failure,
      is VipsError, is DragPayload.Refusal, is ImageRetry.Refusal, is DropFailure:
      return .conflict
    case let error as ArchiveError where !error.writing: return .conflict
    case let error as WebFailure: return error == .cancelled ? .serviceUnavailable : .badGateway
    default: break
    }
    switch SystemErrorText.errorNumber(of: error) {
    case ENOSPC, EDQUOT: return .init(code: 507, reasonPhrase: "Insufficient Storage")
    case ENOENT, ENOTDIR: return .notFound
    default: return .internalServerError
    }
  }
}

/// Checks every request against `ViewAccess` before a route sees it: the token (from the
/// cookie, a bearer header, or once in the URL, which then becomes the cookie), the Host
/// and, for a change, the Origin.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
  let server: ViewServer

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let access = server.currentAccess() else {
      return ViewError.response(status: .serviceUnavailable, message: "starting")
    }
    var query: [String: String] = [:]
    for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
    let verdict = access.verdict(
      for: ViewAccess.Request(
        method: request.method.rawValue, path: request.uri.path, query: query, host: request.head.authority,
        origin: request.headers[.origin], cookieToken: request.cookies[ViewAccess.cookieName]?.value,
        authorization: request.headers[.authorization]))
    switch verdict {
    case .refuse(let status, let reason):
      return ViewError.response(status: .init(code: status), message: reason)
    case .setCookie(let location):
      var headers = HTTPFields()
      headers[.location] = location
      headers[.setCookie] =
        Cookie(name: ViewAccess.cookieName, value: access.token, path: "/", httpOnly: true, sameSite: .strict)
        .description
      headers[.cacheControl] = "no-store"
      return Response(status: .seeOther, headers: headers)
    case .allow:
      return try await next(request, context)
    }
  }
}

/// Runs the drops and retries that pages start, as child tasks of one task group: they go on
/// when the page is closed, and a graceful shutdown cancels them the way SIGINT cancels a
/// `gallery drop` (what loaded is committed, the other placeholders removed).
final class DropRunner: Service, Sendable {
  typealias Job = @Sendable () async -> Void
  private let jobs: AsyncStream<Job>
  private let continuation: AsyncStream<Job>.Continuation

  init() {
    (jobs, continuation) = AsyncStream.makeStream(of: Job.self)
  }

  func submit(_ job: @escaping Job) { continuation.yield(job) }

  func run() async throws {
    await withDiscardingTaskGroup { group in
      for await job in jobs.cancelOnGracefulShutdown() { group.addTask { await job() } }
      group.cancelAll()
    }
  }
}

/// Ends the server some time after its last page left (for `gallery open`, which starts it).
struct IdleExit: Service {
  let feed: ChangeFeed
  let timeout: Duration

  private enum Input: Sendable {
    case count(Int)
    case expired(Int)
  }

  func run() async throws {
    let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    await cancelWhenGracefulShutdown {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { [feed] in
          for await count in feed.listenerCounts { continuation.yield(.count(count)) }
        }
        var generation = 0
        for await input in inputs {
          switch input {
          case .count(let count):
            generation += 1
            guard count == 0 else { continue }
            let armed = generation
            group.addTask { [timeout] in
              if (try? await Task.sleep(for: timeout)) != nil { continuation.yield(.expired(armed)) }
            }
          case .expired(let armed) where armed == generation:
            group.cancelAll()
            return
          case .expired:
            continue
          }
        }
      }
    }
  }
}
