#!/bin/bash

__gallery_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__gallery_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__gallery_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__gallery_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_gallery() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __gallery_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    new|browse|show|info|rename|duplicate|delete|merge|drop|move|trash|restore|export|uris|drag|compact|check|retry|watch|thumbnail|sheet|copy|paste|cache|open|serve|history|undo|redo|revert|tag|caption|note|add-note|rate|label|sort|refresh-metadata|find|help)
        # Offer subcommand argument completions
        "_gallery_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'new browse show info rename duplicate delete merge drop move trash restore export uris drag compact check retry watch thumbnail sheet copy paste cache open serve history undo redo revert tag caption note add-note rate label sort refresh-metadata find help' -- "${cur}"))
        ;;
    esac
}

_gallery_new() {
    repeating_flags=()
    non_repeating_flags=(--embed --version -h --help)
    repeating_options=()
    non_repeating_options=(--title --thumbnail-size --max-pixels)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--title')
        return
        ;;
    '--thumbnail-size')
        return
        ;;
    '--max-pixels')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_browse() {
    repeating_flags=()
    non_repeating_flags=(--recent --json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    *)
        __gallery_add_completions -d
        return
        ;;
    esac
}

_gallery_show() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--at --where)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--at')
        return
        ;;
    '--where')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_info() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_rename() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 2

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_duplicate() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 2

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_delete() {
    repeating_flags=()
    non_repeating_flags=(--permanently --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_merge() {
    repeating_flags=()
    non_repeating_flags=(--conflict --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-o --into)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o')
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    '--into')
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_drop() {
    repeating_flags=()
    non_repeating_flags=(--recursive -0 --null --keep-failed --embed --no-cache --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--at --max-pixels --jobs --downloads --timeout --max-download-size)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--at')
        return
        ;;
    '--max-pixels')
        return
        ;;
    '--jobs')
        return
        ;;
    '--downloads')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-download-size')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -f
        return
        ;;
    esac
}

_gallery_move() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--to)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--to')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion move -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_trash() {
    repeating_flags=()
    non_repeating_flags=(--list --empty --json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion trash -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_restore() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion restore -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_export() {
    repeating_flags=()
    non_repeating_flags=(--thumbnails --numbered --xmp --no-cache --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--to --downloads --timeout --max-download-size)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--to')
        __gallery_add_completions -d
        return
        ;;
    '--downloads')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-download-size')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion export -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_uris() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion uris -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_drag() {
    repeating_flags=()
    non_repeating_flags=(--move --version -h --help)
    repeating_options=()
    non_repeating_options=(--type)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--type')
        __gallery_add_completions -W 'uri-list'$'\n''gallery'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion drag -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_compact() {
    repeating_flags=()
    non_repeating_flags=(--forget-history --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_check() {
    repeating_flags=()
    non_repeating_flags=(--json --fix --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_retry() {
    repeating_flags=()
    non_repeating_flags=(--no-cache --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--downloads --timeout --max-download-size)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--downloads')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-download-size')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion retry -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_watch() {
    repeating_flags=()
    non_repeating_flags=(--recursive --once --embed --allow-duplicates --version -h --help)
    repeating_options=()
    non_repeating_options=(--into --config --settle --then --reject-to --events --log-level)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--into')
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    '--config')
        __gallery_add_completions -f
        return
        ;;
    '--settle')
        return
        ;;
    '--then')
        __gallery_add_completions -W 'keep'$'\n''delete'$'\n''move:'
        return
        ;;
    '--reject-to')
        __gallery_add_completions -d
        return
        ;;
    '--events')
        __gallery_add_completions -W 'json'
        return
        ;;
    '--log-level')
        __gallery_add_completions -W 'trace'$'\n''debug'$'\n''info'$'\n''notice'$'\n''warning'$'\n''error'$'\n''critical'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __gallery_add_completions -d
        return
        ;;
    esac
}

_gallery_thumbnail() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 3

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    2)
        __gallery_add_completions -f
        return
        ;;
    esac
}

_gallery_sheet() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(-o --columns --row-height --width --captions)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-o')
        __gallery_add_completions -f
        return
        ;;
    '--columns')
        return
        ;;
    '--row-height')
        return
        ;;
    '--width')
        return
        ;;
    '--captions')
        __gallery_add_completions -W 'position'$'\n''id'$'\n''name'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_copy() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--as)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--as')
        __gallery_add_completions -W 'uri-list'$'\n''files'$'\n''gallery'$'\n''image'$'\n''text'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion copy -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_paste() {
    repeating_flags=()
    non_repeating_flags=(--keep-failed --no-cache --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--at --downloads --timeout --max-download-size)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--at')
        return
        ;;
    '--downloads')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-download-size')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_cache() {
    repeating_flags=()
    non_repeating_flags=(--info --clear --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--trim)
    __gallery_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--trim')
        return
        ;;
    esac
}

_gallery_open() {
    repeating_flags=()
    non_repeating_flags=(--print-url --version -h --help)
    repeating_options=()
    non_repeating_options=(--idle-exit)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--idle-exit')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_serve() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--port --bind --idle-exit --log-level)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--port')
        return
        ;;
    '--bind')
        return
        ;;
    '--idle-exit')
        return
        ;;
    '--log-level')
        __gallery_add_completions -W 'trace'$'\n''debug'$'\n''info'$'\n''notice'$'\n''warning'$'\n''error'$'\n''critical'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_history() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--limit)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--limit')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_undo() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 2

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_redo() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 2

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_revert() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--to)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--to')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_tag() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion tag -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_caption() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--text)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--text')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion caption -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_note() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options 3

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    2)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion note -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_add-note() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--at)
    __gallery_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--at')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_rate() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--stars)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--stars')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion rate -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_label() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--colour)
    __gallery_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--colour')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion label -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_sort() {
    repeating_flags=()
    non_repeating_flags=(--json --reverse --version -h --help)
    repeating_options=()
    non_repeating_options=(--by)
    __gallery_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--by')
        __gallery_add_completions -W 'taken'$'\n''added'$'\n''name'$'\n''rating'$'\n''size'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    esac
}

_gallery_refresh-metadata() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __gallery_add_completions -o plusdirs -fX '!*.@(gallery)'
        return
        ;;
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion refresh-metadata -- positional@1 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_find() {
    repeating_flags=()
    non_repeating_flags=(--json --uris --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    *)
        __gallery_add_completions -W "$(__gallery_custom_complete ---completion find -- positional@0 "${COMP_CWORD}" "$(__gallery_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_gallery_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __gallery_offer_flags_options -1
}

complete -o filenames -F _gallery gallery
