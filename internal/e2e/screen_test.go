package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// block draws an envelope by cursor addressing, as full-screen CLIs do:
// every row placed with CSI row;col H, nothing written between the words.
func block(top int, body string) string {
	rows := []string{"[ROUTE]", "to: sink", "type: status", "task: T-1", "body: " + body, "[/ROUTE]"}
	var b strings.Builder
	for i, r := range rows {
		b.WriteString(`\e[` + itoa(top+i) + `;3H` + r)
	}
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestScreenModeReadsEachBlockOnce: an agent on the alternate screen draws
// a block, repaints it three times, scrolls it up, then draws a second one:
// the recipient gets exactly two messages.
func TestScreenModeReadsEachBlockOnce(t *testing.T) {
	script := `write \e[?1049h\e[2J\e[1;1H● working on T-1
write ` + block(3, "first block") + `
sleep 80ms
write \e[2J\e[1;1H● working on T-1` + block(3, "first block") + `
sleep 80ms
write \e[5;1H\e[2K` + block(3, "first block") + `
sleep 80ms
write \e[40;1H\n\n\n\n\n
sleep 80ms
write ` + block(30, "second block") + `
sleep 80ms
write \e[2J` + block(10, "second block") + block(20, "first block") + `
idle
`
	tm := newTeam(t,
		agentDef{name: "fs", flags: []string{"--raw"}, parse: "screen", script: script},
		agentDef{name: "sink", flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.start()
	got := tm.waitReceived("sink", "second block")
	tm.waitReceived("fs", "relayed m-2 to sink")
	if n := strings.Count(got, "[/ROUTE]\r"); n != 2 {
		t.Fatalf("sink got %d messages, want 2:\n%q", n, got)
	}
	for _, want := range []string{"from: fs\rto: sink\rtype: status\rtask: T-1\rid: m-1\rbody: first block\r", "id: m-2\rbody: second block\r"} {
		if !strings.Contains(got, want) {
			t.Errorf("sink lacks %q in %q", want, got)
		}
	}
	if recs := auditJSON(t, tm, "--kind", "reformat"); len(recs) != 0 {
		t.Errorf("a half-drawn frame was refused: %v", recs)
	}
	c.stop()
}

// TestScreenModeIgnoresTypedInputShownOnScreen: a screen-mode agent shows
// what the console typed into it (as an input box does); that is never read
// as the agent's own message.
func TestScreenModeIgnoresTypedInputShownOnScreen(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "asker", flags: []string{"--raw"}, script: `
route to=boxed type=question task=T-2 body="what do you see?"
expect after the input box
idle
`},
		agentDef{name: "boxed", flags: []string{"--raw"}, parse: "screen", script: `
write \e[?1049h\e[2J
expect ^\[/ROUTE\]
write \e[30;1H> 
show-input
sleep 200ms
write \e[10;1H
route to=asker type=answer task=T-2 body="after the input box"
idle
`},
	)
	c := tm.start()
	tm.waitReceived("asker", "after the input box")
	var fromBoxed int
	for _, r := range auditJSON(t, tm, "--agent", "boxed") {
		if r["kind"] == "refusal" || r["kind"] == "reformat" {
			t.Errorf("typed input read back: %v", r)
		}
		if r["kind"] == "message" && r["from"] == "boxed" {
			fromBoxed++
		}
	}
	if fromBoxed != 1 {
		t.Errorf("%d messages from boxed, want 1", fromBoxed)
	}
	c.stop()
}

// TestScreenModeRestartDoesNotReadOldBlocksAgain: a restarted screen-mode
// agent's terminal is reset, but the scrollback keeps what the last
// process printed: its blocks were read again as new ones when the new
// process printed at once (red team 22b, finding 2: a relayed message
// arrived twice, a decided request came back). Each block arrives once.
func TestScreenModeRestartDoesNotReadOldBlocksAgain(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	first := `write ` + block(3, "before the restart") + `
write \e[45;1H` + strings.Repeat(`\n`, 60) + `
sleep 1s
exit 1`
	second := `write ` + block(3, "after the restart") + `
idle`
	script := `if [ -e ` + marker + ` ]; then exec ` + bin.mockagent + ` --raw -e '` + second + `'; else touch ` + marker + `; exec ` + bin.mockagent + ` --raw -e '` + first + `'; fi`
	tm := newTeam(t,
		agentDef{name: "fs", parse: "screen", restart: "on-failure", command: []string{"sh", "-c", script}},
		agentDef{name: "sink", flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.start()
	tm.waitReceived("sink", "after the restart")
	// Every block read off the screen by now is committed once the console
	// has stopped: the audit then holds each message the relay took.
	c.stop()
	n := 0
	for _, r := range auditJSON(t, tm, "--kind", "message") {
		if strings.Contains(fmt.Sprint(r["body"]), "before the restart") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the block from before the restart was taken %d times", n)
	}
}
