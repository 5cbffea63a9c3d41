package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The listing commands (agents, inbox, questions, tasks, progress,
// consults, audit) share one --format flag and one printer: a table for
// people, or JSON lines for programs. The JSON is one object a line, under
// snake_case keys that do not follow Go's field names (each listing has its
// view type, or prints a type whose JSON is already that), times in RFC 3339
// and zero times left out.

// formatFlag is a listing's --format.
type formatFlag struct {
	value   string
	formats []string
}

// addFormat adds --format to a listing command: table (the default) or
// json, and the command's own further formats (audit's csv).
func addFormat(cmd *cobra.Command, extra ...string) *formatFlag {
	f := &formatFlag{formats: append([]string{"table", "json"}, extra...)}
	cmd.Flags().StringVar(&f.value, "format", "table", orList(f.formats)+" (json: one object a line)")
	return f
}

// check refuses a format the command does not print.
func (f *formatFlag) check() error {
	if slices.Contains(f.formats, f.value) {
		return nil
	}
	return fmt.Errorf("--format: %q: use %s", f.value, orList(f.formats))
}

// json reports whether the listing is to be printed as JSON lines.
func (f *formatFlag) json() bool { return f.value == "json" }

// printList prints rows as JSON lines, each through view (nil: as it is),
// or else calls table.
func printList[T any](w io.Writer, f *formatFlag, rows []T, view func(T) any, table func() error) error {
	if err := f.check(); err != nil {
		return err
	}
	if !f.json() {
		return table()
	}
	for _, r := range rows {
		var v any = r
		if view != nil {
			v = view(r)
		}
		if err := writeJSONLine(w, v); err != nil {
			return err
		}
	}
	return nil
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// orList is "a or b", "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
