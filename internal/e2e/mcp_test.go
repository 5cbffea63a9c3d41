package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// An agent's CLI starts `teamlead mcp` and calls send_message: the message
// is relayed from that agent (whatever the call says), the call's result is
// the acknowledgement with the message id, and nothing is typed back into
// the sender for it. A call the Team Lead refuses comes back as an error.
func TestMCPToolSendsAndAnswersWithTheAck(t *testing.T) {
	tm := newTeamWith(t, "")
	out := filepath.Join(tm.dir, "mcp.out")
	in := filepath.Join(tm.dir, "dev.typed")
	calls := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"architect","type":"question","task":"T-1","body":"Which transport?"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"nobody","task":"T-1","body":"hello?"}}}`,
	}, "\n")
	if err := os.WriteFile(filepath.Join(tm.dir, "calls.jsonl"), []byte(calls+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `(cat "$CALLS"; sleep 3) | "$TL" mcp > "$OUT" 2>&1; echo mcp-done >> "$OUT"; exec cat > "$IN"`
	tm.extra = "    env: {TL: " + bin.teamlead + ", OUT: " + out + ", IN: " + in + ", CALLS: " + filepath.Join(tm.dir, "calls.jsonl") + "}\n"
	tm.write("team.yaml", []agentDef{
		{name: "architect", flags: []string{"--raw"}, script: "idle\n"},
		{name: "dev", command: []string{"/bin/sh", "-c", script}},
	})
	c := tm.start()
	defer c.stop()
	got := tm.waitReceived("architect", "[/ROUTE]")
	for _, want := range []string{"from: dev", "type: question", "body: Which transport?"} {
		if !strings.Contains(got, want) {
			t.Errorf("architect received %q, lacking %q", got, want)
		}
	}
	var res string
	waitFor(t, 20*time.Second, "the tool calls' results", func() bool {
		b, _ := os.ReadFile(out)
		res = string(b)
		return strings.Contains(res, "mcp-done")
	}, func() string { return res + c.out.String() })
	for _, want := range []string{`"name":"send_message"`, `"name":"ask_question"`, `"name":"hand_off"`, `"isError":true`, "nobody"} {
		if !strings.Contains(res, want) {
			t.Errorf("the server's answers lack %q:\n%s", want, res)
		}
	}
	// The calls run side by side, so either may get m-1: the answer names
	// the id the architect received.
	if m := regexp.MustCompile(`relayed (m-\d+) to architect`).FindStringSubmatch(res); m == nil || !strings.Contains(got, "id: "+m[1]+"\r") {
		t.Errorf("the acknowledgement in the call's answer does not name the message the architect got:\n%s\n%q", res, got)
	}
	// Nothing was typed into dev for either call: the human's marker is
	// the first thing it reads.
	tm.mustCLI("send", "dev", "marker from the human")
	waitFor(t, 20*time.Second, "dev to read the marker", func() bool {
		b, _ := os.ReadFile(in)
		return strings.Contains(string(b), "marker from the human")
	})
	if b, _ := os.ReadFile(in); strings.Contains(string(b), "relayed") || strings.Contains(string(b), "nobody") {
		t.Errorf("typed into the sender besides the marker:\n%s", b)
	}
}
