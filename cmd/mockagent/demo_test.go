package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The demo's agents wait for the human as long as a person may take: the
// expect after a script says it waits for the human runs under a timeout of an hour
// or more (QA's question once died after the default 30 s, before a new
// user found the inbox).
func TestDemoScriptsWaitForTheHuman(t *testing.T) {
	files, _ := filepath.Glob("../../configs/demo/*.mock")
	if len(files) == 0 {
		t.Fatal("no demo scripts found")
	}
	humanWaits := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmds, err := Parse(string(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		timeout, waiting := defaultExpectTimeout, false
		for _, c := range cmds {
			switch c.Op {
			case OpTimeout:
				timeout = c.Dur
			case OpSay:
				// The scripts say so before they wait for the human.
				waiting = strings.Contains(c.Text, "waiting for the human")
			case OpExpect:
				if waiting {
					humanWaits++
					if timeout < time.Hour {
						t.Errorf("%s:%d waits for the human with a %s timeout", filepath.Base(f), c.Line, timeout)
					}
				}
				waiting = false
			}
		}
	}
	if humanWaits < 2 {
		t.Errorf("found %d waits for the human in the demo; the check reads nothing", humanWaits)
	}
}
