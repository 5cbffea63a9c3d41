// Package fielderr is the error of a configuration file at one place
// (file, line, field) and the reading of YAML syntax errors at their real
// line. It imports nothing of the project, so every reader of a config file
// can use it.
package fielderr

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every validation error of a config file.
var ErrInvalid = errors.New("invalid config")

// FieldError is a problem at one place of a config file.
type FieldError struct {
	File  string
	Line  int
	Field string // dotted path, e.g. agents[1].preset; "" for the file as a whole
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Unwrap lets errors.Is(err, ErrInvalid) match.
func (e *FieldError) Unwrap() error { return ErrInvalid }
