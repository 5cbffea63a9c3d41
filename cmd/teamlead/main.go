// Command teamlead leads a team of AI coding agents from a terminal.
package main

import (
	"fmt"
	"os"

	"github.com/teamlead/teamlead/internal/textsafe"
)

func main() {
	// Everything a command prints can carry agents' text: control
	// characters in it are shown, never interpreted by the terminal. The
	// console's own screen does not go through these writers.
	out, errOut := textsafe.NewWriter(os.Stdout), textsafe.NewWriter(os.Stderr)
	root := newRootCmd()
	root.SetOut(out)
	root.SetErr(errOut)
	err := root.Execute()
	_ = out.Flush()
	_ = errOut.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "teamlead:", textsafe.Text(err.Error()))
		os.Exit(1)
	}
}
