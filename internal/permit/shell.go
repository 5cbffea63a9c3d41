package permit

import (
	"errors"
	"strings"
)

// ErrShell is wrapped by every error of SplitShell: the text is not shell
// this package can split, so no part of it can be approved unasked.
var ErrShell = errors.New("cannot split the shell command")

// maxShellDepth bounds the nesting of substitutions and subshells.
const maxShellDepth = 40

// Word is one shell word of a simple command.
type Word struct {
	// Raw is the word as written.
	Raw string
	// Value is the word after quote removal and escapes; expansions are kept as written.
	Value string
	// Dynamic reports an expansion ($x, $(...), `...`, <(...)) whose value is known only when it runs;
	// a brace expansion in an argument is expanded into its words, elsewhere (a redirection target) it is Dynamic.
	Dynamic bool
	// Glob reports an unquoted *, ? or [...] that the shell expands to file names.
	Glob bool
	// Tilde reports an unquoted ~ at the start, which the shell expands to a home directory.
	Tilde bool
	// ProcSubst reports a word that is one process substitution, <(…) or >(…): a /dev/fd pipe.
	ProcSubst bool
}

// Redirect is one redirection of a simple command.
type Redirect struct {
	// Op is the operator: > >> >| < << <<- <<< <> &> &>> >& <&.
	Op string
	// FD is the descriptor written before the operator, e.g. "2"; empty when none.
	FD string
	// Target is the file, descriptor or here-document delimiter after the operator.
	Target Word
	// Body is the text of a here-document (<< and <<-) or here-string (<<<).
	Body string
}

// Command is one simple command of a shell text.
type Command struct {
	// Text is the command's source text.
	Text string
	// Assigns are the NAME=value words before the command word.
	Assigns []Word
	// Args are the command word and its arguments.
	Args []Word
	// Redirects are the command's redirections.
	Redirects []Redirect
	// Op is the operator before the command: "", ";", "&&", "||", "|", "|&" or "&".
	Op string
	// Via tells how the command is nested: "" at top level, "$(", "`", "<(", ">(", "(" or "<<" (a here-document).
	Via string
	// Control marks a line that runs nothing by itself: a for or select header, a function definition, [[ ]] or (( )).
	Control bool
	// Loop, on a for header, is the words its variable (Assigns) takes in turn.
	Loop []Word
	// Feed, on the command right of a pipe whose left side is one simple
	// command with no redirection, is that command: its output alone is
	// what this one reads (find . -name '*.go' | xargs grep TODO).
	Feed *Command
}

// isFD reports a word that is a file descriptor number before a redirection.
func isFD(w Word) bool {
	if w.Raw == "" || len(w.Raw) > 4 {
		return false
	}
	for i := 0; i < len(w.Raw); i++ {
		if w.Raw[i] < '0' || w.Raw[i] > '9' {
			return false
		}
	}
	return true
}

// isAssignment reports NAME=value (or NAME+=value, NAME[i]=value) with an unquoted name.
func isAssignment(raw string) bool {
	i := 0
	for i < len(raw) && (raw[i] == '_' || raw[i] >= 'a' && raw[i] <= 'z' || raw[i] >= 'A' && raw[i] <= 'Z' || i > 0 && raw[i] >= '0' && raw[i] <= '9') {
		i++
	}
	if i == 0 || i == len(raw) {
		return false
	}
	if raw[i] == '[' {
		j := strings.IndexByte(raw[i:], ']')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return strings.HasPrefix(raw[i:], "=") || strings.HasPrefix(raw[i:], "+=")
}
