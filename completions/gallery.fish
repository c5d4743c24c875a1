function __gallery_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __gallery_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __gallery_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __gallery_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __gallery_parse_tokens -S
    set -l unparsed_tokens (__gallery_tokens -pc)
    switch $unparsed_tokens[1]
    case 'gallery'
        __gallery_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'new'
            __gallery_parse_subcommand 1 'title=' 'thumbnail-size=' 'max-pixels=' 'embed' 'version' 'h/help'
        case 'browse'
            __gallery_parse_subcommand -r 1 'recent' 'json' 'version' 'h/help'
        case 'show'
            __gallery_parse_subcommand 1 'json' 'at=' 'version' 'h/help'
        case 'info'
            __gallery_parse_subcommand 1 'json' 'version' 'h/help'
        case 'rename'
            __gallery_parse_subcommand 2 'version' 'h/help'
        case 'duplicate'
            __gallery_parse_subcommand 2 'version' 'h/help'
        case 'delete'
            __gallery_parse_subcommand 1 'permanently' 'version' 'h/help'
        case 'merge'
            __gallery_parse_subcommand -r 1 'o=' 'into=' 'conflict' 'json' 'version' 'h/help'
        case 'drop'
            __gallery_parse_subcommand -r 2 'at=' 'recursive' '0/null' 'keep-failed' 'max-pixels=' 'embed' 'jobs=' 'downloads=' 'timeout=' 'max-download-size=' 'no-cache' 'json' 'version' 'h/help'
        case 'move'
            __gallery_parse_subcommand -r 2 'to=' 'version' 'h/help'
        case 'trash'
            __gallery_parse_subcommand -r 2 'list' 'empty' 'json' 'version' 'h/help'
        case 'restore'
            __gallery_parse_subcommand -r 2 'version' 'h/help'
        case 'export'
            __gallery_parse_subcommand -r 2 'to=' 'thumbnails' 'numbered' 'downloads=' 'timeout=' 'max-download-size=' 'no-cache' 'version' 'h/help'
        case 'uris'
            __gallery_parse_subcommand -r 2 'version' 'h/help'
        case 'drag'
            __gallery_parse_subcommand -r 2 'type=' 'move' 'version' 'h/help'
        case 'compact'
            __gallery_parse_subcommand 1 'forget-history' 'version' 'h/help'
        case 'check'
            __gallery_parse_subcommand 1 'json' 'fix' 'version' 'h/help'
        case 'retry'
            __gallery_parse_subcommand -r 2 'downloads=' 'timeout=' 'max-download-size=' 'no-cache' 'version' 'h/help'
        case 'watch'
            __gallery_parse_subcommand -r 1 'into=' 'config=' 'recursive' 'once' 'settle=' 'then=' 'embed' 'reject-to=' 'allow-duplicates' 'events=' 'log-level=' 'version' 'h/help'
        case 'thumbnail'
            __gallery_parse_subcommand 3 'version' 'h/help'
        case 'sheet'
            __gallery_parse_subcommand 1 'o=' 'columns=' 'row-height=' 'width=' 'captions=' 'json' 'version' 'h/help'
        case 'copy'
            __gallery_parse_subcommand -r 2 'as=' 'version' 'h/help'
        case 'paste'
            __gallery_parse_subcommand 1 'at=' 'keep-failed' 'downloads=' 'timeout=' 'max-download-size=' 'no-cache' 'json' 'version' 'h/help'
        case 'cache'
            __gallery_parse_subcommand 0 'info' 'clear' 'trim=' 'json' 'version' 'h/help'
        case 'open'
            __gallery_parse_subcommand 1 'print-url' 'idle-exit=' 'version' 'h/help'
        case 'serve'
            __gallery_parse_subcommand -r 1 'port=' 'bind=' 'idle-exit=' 'log-level=' 'version' 'h/help'
        case 'history'
            __gallery_parse_subcommand 1 'json' 'limit=' 'version' 'h/help'
        case 'undo'
            __gallery_parse_subcommand 2 'json' 'version' 'h/help'
        case 'redo'
            __gallery_parse_subcommand 2 'json' 'version' 'h/help'
        case 'revert'
            __gallery_parse_subcommand 1 'to=' 'json' 'version' 'h/help'
        case 'help'
            __gallery_parse_subcommand -r 1 'version'
        end
    end
end

function __gallery_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __gallery_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __gallery_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __gallery_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__gallery_tokens -p)
    if test -z "$(__gallery_tokens -t)"
        set -l index (count (__gallery_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'gallery' -f
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'new' -d 'Create an empty gallery document.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'browse' -d 'List gallery documents: the document browser.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'show' -d 'List a gallery\'s items in order.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'info' -d 'Show counts, sizes, format version, revisions and dead bytes.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'rename' -d 'Rename a document: its file and its title.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'duplicate' -d 'Copy a document.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'delete' -d 'Move a document to the Trash.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'merge' -d 'Merge galleries.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'drop' -d 'Drop images into a gallery.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'move' -d 'Reorder items.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'trash' -d 'Move items to the trash, list it, or empty it.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'restore' -d 'Put trashed items back where they were.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'export' -d 'Copy items\' images into a folder (drag out).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'uris' -d 'Print items\' sources as a text/uri-list (drag out).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'drag' -d 'Write items as a drag payload, for `gallery drop DST -`.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'compact' -d 'Rewrite a document without its dead bytes.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'check' -d 'Verify a document.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'retry' -d 'Load again stale placeholders and failed items.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'watch' -d 'Turn files put into a folder into drops (a drop folder).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'thumbnail' -d 'Write a document\'s cover at a size (for file-manager thumbnailers).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'sheet' -d 'Draw a contact sheet of a gallery.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'copy' -d 'Copy items to the desktop clipboard.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'paste' -d 'Drop what the desktop clipboard holds.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'cache' -d 'Show or clear the download cache.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'open' -d 'Open a gallery in the web browser.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'serve' -d 'Serve galleries to a web browser, in the foreground.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'history' -d 'List a document\'s history: its revisions, newest first.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'undo' -d 'Take back the last operations, as new revisions.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'redo' -d 'Bring back operations that undo took back, as new revisions.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'revert' -d 'Make the document as it was at a past revision, as a new revision.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery new" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery new" title' -l 'title' -d 'The title (default: the file name without .gallery).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery new" thumbnail-size' -l 'thumbnail-size' -d 'Longest side of thumbnails, in pixels.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery new" max-pixels' -l 'max-pixels' -d 'Refuse images with more pixels than this (decompression bombs).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery new" embed' -l 'embed' -d 'Embed the original bytes of every image dropped into this document.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery new" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery new" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery browse" -ge 1' -fa '(__gallery_complete_directories)'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery browse" recent' -l 'recent' -d 'Only the recently used documents.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery browse" json' -l 'json' -d 'Write JSON to standard output instead of text.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery browse" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery browse" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery show" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery show" json' -l 'json' -d 'Write JSON to standard output instead of text.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery show" at' -l 'at' -d 'Show the document as it was at this revision (`42` or `r42`; see `gallery history`).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery show" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery info" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery info" json' -l 'json' -d 'Write JSON to standard output instead of text.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery info" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery info" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery rename" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery rename" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery rename" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery duplicate" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery duplicate" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery duplicate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery delete" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery delete" permanently' -l 'permanently' -d 'Delete the file for good instead of moving it to the Trash.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery delete" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery merge" -ge 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery merge" o' -s 'o' -d 'A new document to make.' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery merge" into' -l 'into' -d 'An existing document to merge into (it comes first).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery merge" conflict' -l 'conflict' -d 'Merge a sync tool\'s conflict copy back: DOC COPY.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery merge" json' -l 'json' -d 'With --conflict, write what was done as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery merge" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery merge" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery drop" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" at' -l 'at' -d '1-based position of the first dropped item (default: the end).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" recursive' -l 'recursive' -d 'Drop the images found in folders, and below them.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" 0 null' -s '0' -l 'null' -d 'Standard input lists sources ended by NULs (find -print0).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" keep-failed' -l 'keep-failed' -d 'Keep a failed item (aspect ratio 1) for a source that cannot be loaded.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" max-pixels' -l 'max-pixels' -d 'Refuse images with more pixels than this (default: the document\'s setting).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" embed' -l 'embed' -d 'Store the original bytes in the document too, so it travels with its images (default: the document\'s setting).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" jobs' -l 'jobs' -d 'How many images to decode at once (default: one per core).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" downloads' -l 'downloads' -d 'How many web downloads run at once.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" timeout' -l 'timeout' -d 'Seconds a web download may take in all, redirects included.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" max-download-size' -l 'max-download-size' -d 'Largest image accepted, downloaded or local (at most 256M), in bytes or with a K, M or G suffix.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" no-cache' -l 'no-cache' -d 'Neither read nor fill the download cache (~/.cache/gallery).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" json' -l 'json' -d 'Write the committed items as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery drop" -ge 2' -F
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drop" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery move" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery move" -ge 2' -fka '(__gallery_custom_completion ---completion move -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery move" to' -l 'to' -d '1-based position, or `end`.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery move" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery move" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery trash" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery trash" -ge 2' -fka '(__gallery_custom_completion ---completion trash -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery trash" list' -l 'list' -d 'List the trash: position in the trash, id, state, aspect ratio, size, source.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery trash" empty' -l 'empty' -d 'Empty the trash (`gallery undo` brings its items back while the history keeps them).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery trash" json' -l 'json' -d 'With --list, write JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery trash" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery trash" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery restore" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery restore" -ge 2' -fka '(__gallery_custom_completion ---completion restore -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery restore" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery restore" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery export" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery export" -ge 2' -fka '(__gallery_custom_completion ---completion export -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" to' -l 'to' -d 'The folder to copy into (created if missing).' -rfa '(__gallery_complete_directories)'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" thumbnails' -l 'thumbnails' -d 'Export the thumbnails instead of the originals.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" numbered' -l 'numbered' -d 'Prefix names with the items\' positions (001-beach.jpg, ...), so the gallery order survives.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" downloads' -l 'downloads' -d 'How many web downloads run at once.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" timeout' -l 'timeout' -d 'Seconds a web download may take in all, redirects included.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" max-download-size' -l 'max-download-size' -d 'Largest image accepted, downloaded or local (at most 256M), in bytes or with a K, M or G suffix.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" no-cache' -l 'no-cache' -d 'Neither read nor fill the download cache (~/.cache/gallery).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery uris" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery uris" -ge 2' -fka '(__gallery_custom_completion ---completion uris -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery uris" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery uris" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery drag" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery drag" -ge 2' -fka '(__gallery_custom_completion ---completion drag -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drag" type' -l 'type' -d 'uri-list or gallery.' -rfka 'uri-list gallery'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drag" move' -l 'move' -d 'Move instead of copy (gallery payloads).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drag" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery drag" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery compact" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery compact" forget-history' -l 'forget-history' -d 'Drop the history: nothing before now can be undone or shown with `show --at`.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery compact" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery compact" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery check" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery check" json' -l 'json' -d 'Write JSON to standard output instead of text.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery check" fix' -l 'fix' -d 'Remove stale placeholders and orphan entries before checking.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery check" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery retry" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery retry" -ge 2' -fka '(__gallery_custom_completion ---completion retry -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery retry" downloads' -l 'downloads' -d 'How many web downloads run at once.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery retry" timeout' -l 'timeout' -d 'Seconds a web download may take in all, redirects included.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery retry" max-download-size' -l 'max-download-size' -d 'Largest image accepted, downloaded or local (at most 256M), in bytes or with a K, M or G suffix.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery retry" no-cache' -l 'no-cache' -d 'Neither read nor fill the download cache (~/.cache/gallery).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery retry" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery retry" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery watch" -ge 1' -fa '(__gallery_complete_directories)'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" into' -l 'into' -d 'The document to drop into.' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" config' -l 'config' -d 'A file of DIR:DOC pairs (default: $XDG_CONFIG_HOME/gallery/watch.conf when no DIR is given).' -rF
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" recursive' -l 'recursive' -d 'Watch the folders below DIR too, including ones created later.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" once' -l 'once' -d 'Import what is in DIR now, then exit.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" settle' -l 'settle' -d 'Milliseconds a complete file must stay unchanged before it is committed, when whether a writer still holds it cannot be told.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" then' -l 'then' -d 'What to do with a file once committed: keep (the item refers to it), move:DIR, or delete (with --embed, once the document holding it is saved).' -rfka 'keep delete move:'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" embed' -l 'embed' -d 'Embed the originals in the document (default: the document\'s setting).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" reject-to' -l 'reject-to' -d 'Move files that are not usable images into this folder.' -rfa '(__gallery_complete_directories)'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" allow-duplicates' -l 'allow-duplicates' -d 'Import the same content again when it appears again.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" events' -l 'events' -d 'Write events to standard output, one JSON object a line.' -rfka 'json'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" log-level' -l 'log-level' -d 'Log level on standard error.' -rfka 'trace debug info notice warning error critical'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery thumbnail" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery thumbnail" -eq 2' -F
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery thumbnail" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery thumbnail" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery sheet" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" o' -s 'o' -d 'The image to write.' -rF
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" columns' -l 'columns' -d 'Items per row.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" row-height' -l 'row-height' -d 'Target row height in pixels (default 160).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" width' -l 'width' -d 'Sheet width in pixels.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" captions' -l 'captions' -d 'A caption under each image: position, id or name (its file name).' -rfka 'position id name'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" json' -l 'json' -d 'Write the layout (each tile\'s place and size) as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery sheet" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery copy" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery copy" -ge 2' -fka '(__gallery_custom_completion ---completion copy -- positional@1 (count (__gallery_tokens -pc)) (__gallery_tokens -tC))'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery copy" as' -l 'as' -d 'Offer only this type: uri-list, files, gallery, image or text.' -rfka 'uri-list files gallery image text'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery copy" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery copy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery paste" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" at' -l 'at' -d '1-based position of the first pasted item (default: the end).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" keep-failed' -l 'keep-failed' -d 'Keep a failed item (aspect ratio 1) for a source that cannot be loaded.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" downloads' -l 'downloads' -d 'How many web downloads run at once.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" timeout' -l 'timeout' -d 'Seconds a web download may take in all, redirects included.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" max-download-size' -l 'max-download-size' -d 'Largest image accepted, downloaded or local (at most 256M), in bytes or with a K, M or G suffix.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" no-cache' -l 'no-cache' -d 'Neither read nor fill the download cache (~/.cache/gallery).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" json' -l 'json' -d 'Write the committed items as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery paste" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery cache" info' -l 'info' -d 'Show where the cache is, how many entries and bytes it holds, and its limit (the default).'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery cache" clear' -l 'clear' -d 'Remove every cached download.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery cache" trim' -l 'trim' -d 'Evict least recently used entries until at most this size is left.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery cache" json' -l 'json' -d 'Write JSON to standard output instead of text.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery cache" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery cache" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery open" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery open" print-url' -l 'print-url' -d 'Print the page\'s address (with its access token) instead of opening a browser.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery open" idle-exit' -l 'idle-exit' -d 'Seconds a server started now lives on after its last page closed.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery open" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery open" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery serve" -ge 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery serve" port' -l 'port' -d 'The port to listen on (default: a free one).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery serve" bind' -l 'bind' -d 'The address to listen on.' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery serve" idle-exit' -l 'idle-exit' -d 'Stop after this many seconds without an open page (default: never).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery serve" log-level' -l 'log-level' -d 'Log level on standard error.' -rfka 'trace debug info notice warning error critical'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery serve" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery history" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery history" json' -l 'json' -d 'Write JSON to standard output instead of text.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery history" limit' -l 'limit' -d 'Show at most N revisions (the newest).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery history" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery history" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery undo" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery undo" json' -l 'json' -d 'Write what was done as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery undo" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery undo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery redo" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery redo" json' -l 'json' -d 'Write what was done as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery redo" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery redo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_positional "gallery revert" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'gallery\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery revert" to' -l 'to' -d 'The revision (`42` or `r42`, from `gallery history`).' -rfka ''
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery revert" json' -l 'json' -d 'Write what was done as JSON.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery revert" version' -l 'version' -d 'Show the version.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery revert" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'gallery' -n '__gallery_should_offer_completions_for_flags_or_options "gallery help" version' -l 'version' -d 'Show the version.'
