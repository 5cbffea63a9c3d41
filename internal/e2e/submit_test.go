package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// boxPreset is a team's own preset for mockagent's input box: the text is
// pasted with the submit key in the same write, which the box takes as a
// newline, so the text waits until the submit check presses it again.
const boxPreset = `presets:
  box:
    paste: always
    submit_delay: 0s
    submit_retries: %d
`

// A CLI that takes the Enter after a paste as a newline (as Gemini CLI
// does): the console sees the text still waiting at the cursor in the
// agent's input box and presses the submit key again; the message reaches
// the agent and the retry is audited.
func TestSubmitPressedAgainWhenTextWaits(t *testing.T) {
	tm := newTeamWith(t, strings.Replace(boxPreset, "%d", "3", 1),
		agentDef{name: "gem", preset: "box", flags: []string{"--input-box", "--newline-after-paste", "500ms"}, script: `
expect review the parser
route to=human type=status task=T-1 body="got the review request"
idle
`})
	c := tm.start()
	defer c.stop()
	tm.mustCLI("send", "gem", "Please review the parser before the release.")
	waitFor(t, 20*time.Second, "the agent to take the message", func() bool {
		return strings.Contains(tm.mustCLI("audit", "--agent", "gem"), "got the review request")
	}, func() string { return fmt.Sprintf("received %q\nconsole: %s", tm.received("gem"), c.out.String()) })
	waitFor(t, 20*time.Second, "the retry in the audit trail", func() bool {
		return len(auditJSON(t, tm, "--kind", "resubmit")) == 1
	})
	r := auditJSON(t, tm, "--kind", "resubmit")[0]
	if r["agent"] != "gem" || !strings.Contains(r["body"].(string), "review the parser") {
		t.Errorf("resubmit record %v", r)
	}
	// The first Enter (in the paste's write) became a newline, each press
	// after it is an Enter of its own: the message's text then the keys.
	if got := tm.received("gem"); !strings.Contains(got, "before the release.\x1b[201~\r\r") {
		t.Errorf("typed %q", got)
	}
	if n := len(auditJSON(t, tm, "--kind", "submit-stuck")); n != 0 {
		t.Errorf("%d submit-stuck records", n)
	}
}

// A box that never takes the Enter: after the preset's retries the text is
// reported as stuck, to the human and in the audit trail, and nothing is
// pressed after that.
func TestSubmitStuckReported(t *testing.T) {
	tm := newTeamWith(t, strings.Replace(boxPreset, "%d", "1", 1),
		agentDef{name: "gem", preset: "box", flags: []string{"--input-box", "--newline-after-paste", "1h"}, script: "idle\n"})
	c := tm.start()
	defer c.stop()
	tm.mustCLI("send", "gem", "This text never leaves the box.")
	waitFor(t, 20*time.Second, "the stuck report", func() bool {
		return len(auditJSON(t, tm, "--kind", "submit-stuck")) == 1
	})
	r := auditJSON(t, tm, "--kind", "submit-stuck")[0]
	if r["fields"].(map[string]any)["presses"] != "1" {
		t.Errorf("submit-stuck record %v", r)
	}
	waitFor(t, 20*time.Second, "the human told", func() bool {
		return strings.Contains(c.out.String(), "still waits in the input box")
	})
	if got := tm.received("gem"); strings.Count(got, "\r") != 2 {
		t.Errorf("typed %q: want the text's Enter and one more", got)
	}
}
