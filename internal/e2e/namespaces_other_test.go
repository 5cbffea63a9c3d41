//go:build !linux

package e2e

import "errors"

// namespacesWork: the sandbox is Linux's.
func namespacesWork() error { return errors.New("not Linux") }
