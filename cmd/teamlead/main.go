// Command teamlead leads a team of AI coding agents from a terminal.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "teamlead:", err)
		os.Exit(1)
	}
}
