// Package queryfiles reads and writes the inter-agent query files of seed 000:
// queries (.spc/queries/query-*.yaml), their responses
// (query-...-response.yaml) and the optional index (index.yaml); and it
// watches query folders, reporting each new or changed query once its
// content has settled.
//
// Parsing is lenient where agents are sloppy (a single recipient or a list,
// unknown extra keys are kept, an unquoted "Option: text" list item is read
// as text) and strict where a slip would lose meaning (an unknown priority or
// status, a misspelt field name, a field given twice). Every error names the
// file, the line and the field, and says what to do. A file that looks cut
// short also matches ErrIncomplete, so that a watcher waits for the writer to
// finish instead of reporting it.
package queryfiles

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by this package (wrapped, with details); test with errors.Is.
var (
	// ErrIncomplete: the file looks half-written (empty, cut inside a YAML
	// construct, or without a required field); read it again when it changes.
	ErrIncomplete = errors.New("file is incomplete")
	// ErrBadYAML: the file is not valid YAML.
	ErrBadYAML = errors.New("not valid YAML")
	// ErrMissingField: a required field is absent or empty.
	ErrMissingField = errors.New("required field missing")
	// ErrInvalid: a field has a value or a shape this package does not accept.
	ErrInvalid = errors.New("invalid value")
	// ErrCorruptIndex: index.yaml could not be read (UpsertIndex rebuilds it).
	ErrCorruptIndex = errors.New("query index unreadable")
	// ErrClosed is returned by Watcher.Add after Close.
	ErrClosed = errors.New("spc: watcher closed")
)

// FieldError is a problem at one place of a query, response or index file.
// It matches its sentinel (Err) and, when Incomplete, ErrIncomplete too.
type FieldError struct {
	// File is the file's name as given to the parser.
	File string
	// Line is the 1-based line of the problem, 0 when it has none.
	Line int
	// Field is the field concerned ("" for the file as a whole).
	Field string
	// Msg says what is wrong and what to do.
	Msg string
	// Err is the sentinel: ErrBadYAML, ErrMissingField, ErrInvalid or ErrIncomplete.
	Err error
	// Incomplete is true when the problem can come from a file caught half-written.
	Incomplete bool
}

// Error formats the problem as "file:line: field: message".
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Incomplete {
		b.WriteString(" (half-written? it is read again when it changes)")
	}
	return b.String()
}

// Unwrap lets errors.Is match Err and, for an incomplete file, ErrIncomplete.
func (e *FieldError) Unwrap() []error {
	if e.Incomplete && e.Err != ErrIncomplete {
		return []error{e.Err, ErrIncomplete}
	}
	return []error{e.Err}
}
