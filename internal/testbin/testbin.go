// Package testbin builds the teamlead and mockagent binaries once for a
// test package that runs them (the end-to-end and real-CLI suites).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Bins are the paths of the built binaries.
type Bins struct {
	// Teamlead and Mockagent are the built programs.
	Teamlead, Mockagent string
}

// Main builds the binaries into a temporary folder, runs the tests with
// them set in *bins, removes the folder and exits with the tests' code:
// call it from TestMain. A build failure exits at once, saying which.
func Main(run func() int, bins *Bins) {
	dir, err := os.MkdirTemp("", "teamlead-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	bins.Teamlead, bins.Mockagent = filepath.Join(dir, "teamlead"), filepath.Join(dir, "mockagent")
	for out, pkg := range map[string]string{bins.Teamlead: "./cmd/teamlead", bins.Mockagent: "./cmd/mockagent"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", pkg, "failed:", err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := run()
	os.RemoveAll(dir)
	os.Exit(code)
}
