//go:build realcli

package realcli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/fakemodel"
	"github.com/teamlead/teamlead/internal/usage"
)

// denial is what a CLI tells the model server about a tool call the human
// denied (internal/detect/testdata/README.md).
type denial int

const (
	// deniedAtOnce: the next request carries an error result holding
	// the human's note (Claude Code's PreToolUse hook answered deny).
	deniedAtOnce denial = iota
	// deniedErrorNextPrompt: nothing is sent until the next prompt,
	// whose request carries an error result (Claude Code's dialog, Esc).
	deniedErrorNextPrompt
	// deniedAbortedNextPrompt: nothing is sent until the next prompt,
	// whose request carries "aborted" as the result (Codex, Esc).
	deniedAbortedNextPrompt
	// deniedForgotten: nothing is sent, and the next prompt's request
	// holds neither the call nor a result (Gemini CLI, Esc).
	deniedForgotten
	// deniedInterruptedNextPrompt: nothing is sent until the next prompt,
	// whose request carries a result saying the tool was interrupted
	// (GitHub Copilot CLI, Esc: not marked as an error).
	deniedInterruptedNextPrompt
)

// flow is one CLI's run through the suite's scenarios.
type flow struct {
	cli cli
	// preset is the agent's preset when not the CLI's own (a copy of it
	// under another name: no Claude Code hooks).
	preset string
	// source is the door permission requests come through: hook or dialog.
	source string
	// stateHooks: the CLI's own hooks tell the console busy and idle.
	stateHooks bool
	denied     denial
	// byTool: the model sends the status with teamlead's send_message
	// tool, not as a [ROUTE] block in its reply (OpenCode renders the
	// reply as Markdown, which eats the block's brackets).
	byTool bool
}

// Claude Code with teamlead's hooks (the default for the claude-code
// preset): the PreToolUse hook asks the console.
func TestClaudeCodeHooks(t *testing.T) {
	run(t, flow{cli: claudeCode, source: "hook", denied: deniedAtOnce, stateHooks: true})
}

// Claude Code under a copy of the claude-code preset with another name:
// teamlead installs no hooks, and the dialog detector reads Claude Code's
// own permission dialog and presses its keys.
func TestClaudeCodeDialogs(t *testing.T) {
	run(t, flow{cli: claudeCode, preset: "claude-code-screen", source: "dialog", denied: deniedErrorNextPrompt})
}

// Codex: its approval dialog (approval_policy on-request, each command
// escalated out of the read-only sandbox) read off its screen.
func TestCodex(t *testing.T) {
	run(t, flow{cli: codex, source: "dialog", denied: deniedAbortedNextPrompt})
}

// Gemini CLI: its confirmation box read off its screen; its BeforeAgent and
// AfterAgent hooks (teamlead's system defaults) say busy and idle.
func TestGemini(t *testing.T) {
	run(t, flow{cli: gemini, source: "dialog", denied: deniedForgotten, stateHooks: true})
}

// GitHub Copilot CLI, offline against its custom provider (the Messages
// API): its confirmation box read off its screen.
func TestCopilot(t *testing.T) {
	run(t, flow{cli: copilot, source: "dialog", denied: deniedInterruptedNextPrompt})
}

// OpenCode: its permission prompt read off its screen; the status goes
// through teamlead's tool.
func TestOpenCode(t *testing.T) {
	run(t, flow{cli: opencode, source: "dialog", denied: deniedErrorNextPrompt, byTool: true})
}

// Gemini CLI takes an Enter that comes with a paste as a newline (the
// input capture's "rushed" screen): under a copy of its preset that types
// the submit key in the paste's write, the console sees the message still
// in the input box, presses the key again, and the message reaches the
// model, the retry audited.
func TestGeminiSubmitPressedAgain(t *testing.T) {
	tok := token()
	r := newRig(t, gemini, []fakemodel.Reply{{Text: "Noted."}}, rigOptions{preset: "gemini-rushed",
		presetFields: map[string]string{"submit_delay": "0s", "submit_retries": "2"}, sinkScript: "idle\n"})
	r.waitFor("the CLI waiting for input", startDeadline, func() bool { return r.screenState() == "idle" })
	r.mustTeamlead("send", dev, "Summarise the release notes, amber kestrel "+tok+".")
	r.submitted("the human's message", "amber kestrel "+tok, func() bool {
		return len(r.delivered(func(d record) bool { return d.From == "human" })) > 0
	})
	r.waitFor("the retry audited", stepDeadline, func() bool { return len(r.audit("--kind", "resubmit")) == 1 })
	if rec := r.audit("--kind", "resubmit")[0]; rec.Agent != dev || !strings.Contains(rec.Body, "amber kestrel") {
		t.Errorf("the resubmit record: %+v", rec)
	}
	if n := len(r.audit("--kind", "submit-stuck")); n != 0 {
		t.Errorf("%d submit-stuck records", n)
	}
}

// run drives one CLI inside teamlead through the scenarios, in one
// conversation:
//
//  1. the human's first message (teamlead send) makes the model reply
//     with a [ROUTE] status for the sink: relayed exactly once, from the
//     CLI agent, audited once as a message;
//  2. the sink, on receiving it, sends the CLI agent a question: typed
//     into the CLI and submitted, it reaches the model server;
//  3. the primer's first line is in the model server's first
//     conversation request (the system prompt, AGENTS.md, GEMINI.md);
//  4. the model asks to delete a folder outside the working folder (the
//     floor asks): held in the inbox, with no result at the model server
//     and the folder there while it waits; `teamlead approve` lets it run;
//     then another such folder: `teamlead deny` keeps it, and the model
//     server learns of the denial as the CLI tells it; then the model asks
//     to run `go version` (the policy allows it): approved without the
//     human, its result reaches the model server.
//
// The Team Lead's acknowledgement of each relay ("relayed m-1 to sink")
// goes in with the next text typed into the CLI and costs it no model turn
// of its own (checked after step 2); a CLI's own side requests may come
// between: the script's entries wait for the request that holds what they
// answer (fakemodel.Reply.When), the others get "OK".
func run(t *testing.T, f flow) {
	tok := token()
	status := "build green amber falcon " + tok
	question := "Which Go toolchain do you build with, violet heron " + tok + "?"
	note := "keep that folder marble otter " + tok
	keep, gone := scratch(t), scratch(t)
	// The command prints what its text does not hold, so that the
	// request carrying its result is told from the ones that only
	// repeat the call.
	rmGoneCmd := "rm -rf " + gone + " && printf 'removed-%s' " + tok
	rmKeepCmd := "rm -rf " + keep

	first := fakemodel.Reply{Text: "Reporting my status.\n\n[ROUTE] to: sink type: status task: T-1 body: " + status + " [/ROUTE]"}
	if f.byTool {
		first = fakemodel.Reply{Text: "Reporting my status.", Tool: &fakemodel.ToolCall{Name: "mcp__teamlead__send_message",
			Input: map[string]any{"to": sink, "type": "status", "task": "T-1", "body": status}}}
	}
	replies := []fakemodel.Reply{
		// 0: the reply to the human's first message.
		first,
		// 1: the reply to the sink's question.
		{When: "violet heron " + tok, Text: "First I remove the old scratch folder.",
			Tool: &fakemodel.ToolCall{Shell: rmGoneCmd, Description: "Remove the old scratch folder"}},
		// 2: after its result.
		{When: "removed-" + tok, Text: "And the other scratch folder.",
			Tool: &fakemodel.ToolCall{Shell: rmKeepCmd, Description: "Remove the other scratch folder"}},
		// 3: after the denial: the CLI's error result holds the human's
		// note, or the next prompt does.
		{When: note, Text: "Understood, I leave it. Let me check the toolchain.",
			Tool: &fakemodel.ToolCall{Shell: "go version", Description: "Print the Go version"}},
		// 4: after go version's result.
		{When: "go version go1.", Text: "Done."},
	}
	r := newRig(t, f.cli, replies, rigOptions{preset: f.preset, sinkScript: `
expect ^task: T-1$
route to=dev type=question task=T-2 body="` + question + `"
idle
`})
	r.waitFor("the CLI waiting for input", startDeadline, func() bool { return r.screenState() == "idle" })

	// 1. An envelope in the model's reply is relayed exactly once.
	r.mustTeamlead("send", dev, "Report your status on T-1 to sink.")
	fromHuman := func(d record) bool { return d.From == "human" }
	r.submitted("the human's first message", "Report your status on T-1", func() bool { return len(r.delivered(fromHuman)) > 0 })
	if f.stateHooks {
		// The turn the message started is told by the CLI's own hook.
		r.waitFor("the CLI's hook saying what it does", stepDeadline, func() bool {
			a := r.agent()
			return a.HookFrom == "hook" && (a.Hook == "busy" || a.Hook == "idle")
		})
	}
	r.waitFor("the status relayed to the sink", stepDeadline, func() bool { return strings.Contains(r.received(), status) })
	if got := r.received(); !strings.Contains(got, "from: dev\r") || !strings.Contains(got, "type: status\r") {
		t.Errorf("the sink received %q", got)
	}
	firstReq := r.conversation(0, "the first conversation request")

	// 3. The primer reached the model.
	primerAt(t, f.cli, firstReq)

	// 2. The sink's question, typed into the CLI, reaches the model.
	r.submitted("the sink's question", "violet heron "+tok, func() bool {
		return len(r.delivered(func(d record) bool { return d.From == sink && d.Task == "T-2" })) > 0
	})
	r.conversation(1, "the request holding the sink's question")
	// The Team Lead's acknowledgement of the status ("relayed m-1 to
	// sink") waited for the next text typed into the CLI (acks:
	// with-next) and went in with the sink's question: the relay cost the
	// sender no model turn of its own.
	var ack string
	if msgs := r.audit("--kind", "message", "--task", "T-1"); len(msgs) == 1 && msgs[0].MsgID != "" {
		ack = "relayed " + msgs[0].MsgID + " to sink"
	} else {
		t.Fatalf("T-1's message in the audit: %+v", msgs)
	}
	for _, q := range r.model.Requests() {
		if f.byTool {
			break // the acknowledgement was the tool's result
		}
		if q.Script < 0 && !q.Held {
			continue // a CLI's own side request (Gemini CLI's checks), not a turn
		}
		if strings.Contains(string(q.Body), ack) {
			if q.Script != 1 {
				t.Errorf("the acknowledgement first reached the model in request %+v, not with the sink's question: it cost a turn of its own", q.Reply)
			}
			break
		}
	}

	// 4. A recursive delete outside the working folder: the floor asks
	// the human; nothing reaches the model while it waits.
	calls := 0 // the model's calls before the commands
	if f.byTool {
		calls = 1 // send_message
	}
	rmGone := r.call(calls, rmGoneCmd)
	id := r.inboxItem(gone)
	rec := r.permission(gone, "pending")
	if f.source == "hook" && rec.Fields["source"] == "dialog" {
		t.Errorf("the hook did not reach the console: Claude Code fell back to its own dialog")
	}
	if rec.Fields["source"] != f.source || rec.Fields["risk"] != "critical" || !strings.HasPrefix(rec.Fields["rule"], "floor") {
		t.Errorf("the pending request for %s: %+v", rmGoneCmd, rec)
	}
	r.waits(rmGone, gone)
	r.mustTeamlead("approve", id)
	if tr := r.result(rmGone, rmGoneCmd); tr.IsError || !strings.Contains(tr.Output, "removed-"+tok) {
		t.Errorf("the approved command's result: %+v", tr)
	}
	r.waitFor(gone+" deleted", stepDeadline, func() bool { return !exists(gone) })
	if rec := r.permission(gone, "approved"); rec.Fields["decided_by"] != "human" {
		t.Errorf("the approved request: %+v", rec)
	}

	// Another: denied by the human, with a note.
	rmKeep := r.call(calls+1, rmKeepCmd)
	id = r.inboxItem(keep)
	r.waits(rmKeep, keep)
	r.mustTeamlead("deny", id, note)
	if rec := r.permission(keep, "denied"); rec.Fields["decided_by"] != "human" || rec.Fields["source"] != f.source {
		t.Errorf("the denied request: %+v", rec)
	}
	var next fakemodel.Request
	switch f.denied {
	case deniedAtOnce:
		tr := r.result(rmKeep, "the denied "+rmKeepCmd)
		if !tr.IsError || !strings.Contains(tr.Output, note) {
			t.Errorf("the denied call's result: %+v, want an error holding %q", tr, note)
		}
		next = r.conversation(3, "the request after the denial")
	default:
		// The dialog's deny key stops the CLI without telling the model
		// why; the console then types the verdict, with the human's note,
		// as the CLI's next prompt, so the model learns the reason.
		verdictTyped := func() bool {
			for _, d := range r.delivered(func(d record) bool { return d.From == "team-lead" && d.Type == "verdict" }) {
				if d.MsgID == id {
					return true
				}
			}
			return false
		}
		r.submitted("the denial's verdict with the human's note", note, verdictTyped)
		next = r.conversation(3, "the request after the denial and its verdict")
		tr, ok := r.model.Result(rmKeep.ID)
		switch f.denied {
		case deniedErrorNextPrompt:
			if !ok || !tr.IsError {
				t.Errorf("the denied call's result: %+v (seen %v), want an error", tr, ok)
			}
		case deniedAbortedNextPrompt:
			if !ok || !strings.Contains(tr.Output, "aborted") {
				t.Errorf("the denied call's result: %+v (seen %v), want aborted", tr, ok)
			}
		case deniedInterruptedNextPrompt:
			if !ok || !strings.Contains(tr.Output, "interrupted") {
				t.Errorf("the denied call's result: %+v (seen %v), want interrupted", tr, ok)
			}
		case deniedForgotten:
			if ok || strings.Contains(string(next.Body), rmKeep.ID) {
				t.Errorf("the denied call reached the model: result %+v (seen %v)", tr, ok)
			}
		}
	}
	if !exists(keep) {
		t.Errorf("%s deleted although the human denied it", keep)
	}

	// Exactly once: the status relayed once to the sink and audited once;
	// the sink's question audited once (the CLI's screen showing it is
	// not read back as the CLI's message).
	if n := strings.Count(r.received(), status); n != 1 {
		t.Errorf("the sink received the status %d times:\n%q", n, r.received())
	}
	msgs := r.audit("--kind", "message", "--task", "T-1")
	if len(msgs) != 1 || msgs[0].From != dev || len(msgs[0].To) != 1 || msgs[0].To[0] != sink || !strings.Contains(msgs[0].Body, status) {
		t.Errorf("T-1's messages in the audit: %+v", msgs)
	}
	msgs = r.audit("--kind", "message", "--task", "T-2")
	if len(msgs) != 1 || msgs[0].From != sink {
		t.Errorf("T-2's messages in the audit: %+v", msgs)
	}

	// go version: approved by the policy, without the human.
	goVersion := r.call(calls+2, "go version")
	rec = r.permission("go version", "approved")
	if rec.Fields["decided_by"] != "policy" || rec.Fields["source"] != f.source || rec.Agent != dev {
		t.Errorf("go version's permission record: %+v", rec)
	}
	if tr := r.result(goVersion, "go version"); !strings.Contains(tr.Output, "go version go1.") || tr.IsError {
		t.Errorf("go version's result: %+v", tr)
	}
	r.conversation(4, "the request after go version")
	api := map[string]string{"claude": "messages", "codex": "responses", "gemini": "gemini", "copilot": "messages", "opencode": "messages"}[f.cli.name]
	if api != "" && (f.stateHooks || f.preset == "") {
		// What Claude Code and Gemini CLI spent, read from the transcript
		// and chat their hooks name, and what Codex, Copilot CLI and
		// OpenCode spent, read from their session rollout, session events
		// and database (preset session_file), is what the model server
		// reported for their turns. (Claude Code under a copied preset
		// has no hooks to name its transcript.)
		var in, out int64
		var seen usage.Tokens
		r.waitFor("the agent's tokens to match the model server's usage", stepDeadline, func() bool {
			in, out = 0, 0
			for _, q := range r.model.Requests() {
				if q.API == api && q.Stream && q.Usage != nil && (q.Script >= 0 || q.Held) {
					in += int64(q.Usage.Input)
					out += int64(q.Usage.Output)
				}
			}
			tk := r.agent().Tokens
			if tk.Output != seen.Output || tk.Input != seen.Input {
				seen = tk
				r.logf("tokens read so far: %d in, %d out (the model server: %d in, %d out)", tk.Input, tk.Output, in, out)
			}
			return out > 0 && tk.Output == out && tk.Input == in
		})
		r.logf("tokens: %d in, %d out, as the model server reported", in, out)
		// And so `teamlead agents --format json` (a JSON object per
		// agent) lists them.
		dec := json.NewDecoder(strings.NewReader(r.mustTeamlead("agents", "--format", "json")))
		listed := false
		for dec.More() {
			var a struct {
				Name   string        `json:"name"`
				Tokens *usage.Tokens `json:"tokens"`
			}
			if err := dec.Decode(&a); err != nil {
				t.Fatalf("teamlead agents --format json: %v", err)
			}
			if a.Name == dev {
				listed = true
				if a.Tokens == nil || a.Tokens.Input != in || a.Tokens.Output != out {
					t.Errorf("teamlead agents --format json: dev's tokens %+v, want %d in, %d out", a.Tokens, in, out)
				}
			}
		}
		if !listed {
			t.Errorf("teamlead agents --format json does not list %s", dev)
		}
	}
	r.logf("%d conversation requests answered with the aside (acknowledgements typed into the CLI, its own side turns)", r.held())
	// Every message typed into the CLI was taken (with the submit key
	// pressed again, at most, when the CLI kept the text).
	r.logf("%d messages whose submit key was pressed again", len(r.audit("--kind", "resubmit")))
	if stuck := r.audit("--kind", "submit-stuck"); len(stuck) > 0 {
		t.Errorf("messages left in the CLI's input box: %+v", stuck)
	}
	r.stop()
	r.logf("done")
}

// waits checks, for two seconds, that the call waiting for the human has
// not run: no result at the model server, the folder it deletes still
// there. (A person takes at least that long to decide.)
func (r *rig) waits(c fakemodel.SentCall, folder string) {
	r.t.Helper()
	held := time.Now().Add(2 * time.Second)
	for time.Now().Before(held) {
		if tr, ok := r.model.Result(c.ID); ok {
			r.t.Fatalf("%s ran before the human decided: %+v", c.Arguments(), tr)
		}
		if !exists(folder) {
			r.t.Fatalf("%s deleted before the human decided", folder)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.logf("%s still waits for the human", folder)
}

// primerAt checks that the first conversation request carries the primer
// where the CLI puts it: Claude Code's system prompt (its
// --append-system-prompt), Codex's AGENTS.md (sent in the request's
// input), Gemini CLI's GEMINI.md (0.61.0 sends it in the conversation's
// contents, as a first user turn, not in its system instruction), GitHub
// Copilot CLI's and OpenCode's AGENTS.md (in the system prompt).
func primerAt(t *testing.T, c cli, req fakemodel.Request) {
	t.Helper()
	const first = "teamlead primer for dev"
	var body map[string]json.RawMessage
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("the first request's body: %v", err)
	}
	field := map[string]string{"claude": "system", "codex": "input", "gemini": "contents", "copilot": "system", "opencode": "system"}[c.name]
	if !strings.Contains(string(body[field]), first) {
		where := "nowhere"
		for k, v := range body {
			if strings.Contains(string(v), first) {
				where = "in " + k
			}
		}
		t.Errorf("%s: the primer (%q) is not in the first request's %s; it is %s", c.name, first, field, where)
	}
}

// Claude Code is started back into its conversation after the console was
// SIGKILLed: its hooks gave the console the session id, the preset's
// resume arguments (--resume <id>) start it again, and the first request
// after the restart carries the earlier conversation.
func TestClaudeCodeResumesAfterACrash(t *testing.T) { resumesAfterACrash(t, claudeCode) }

// Codex names no conversation to a hook: the console finds it in the
// rollout files Codex keeps (preset session_file) and starts `codex resume
// <id>`.
func TestCodexResumesAfterACrash(t *testing.T) { resumesAfterACrash(t, codex) }

// Gemini CLI names its session to its hooks, as Claude Code does, and
// resumes it with --resume <id>.
func TestGeminiResumesAfterACrash(t *testing.T) { resumesAfterACrash(t, gemini) }

// GitHub Copilot CLI names no conversation to a hook either: the console
// finds it in ~/.copilot/session-state/<id>/events.jsonl (preset
// session_file) and starts `copilot --resume=<id>`.
func TestCopilotResumesAfterACrash(t *testing.T) { resumesAfterACrash(t, copilot) }

// OpenCode keeps its conversations in its database: the console finds the
// agent's there and starts `opencode --session <id>`.
func TestOpenCodeResumesAfterACrash(t *testing.T) { resumesAfterACrash(t, opencode) }

func resumesAfterACrash(t *testing.T, c cli) {
	tok := token()
	codeword := "copper lynx " + tok
	replies := []fakemodel.Reply{
		{Text: "Noted."},
		{When: "What was the codeword", Text: "It was " + codeword + "."},
	}
	r := newRig(t, c, replies, rigOptions{sinkScript: "idle\n"})
	r.waitFor("the CLI waiting for input", startDeadline, func() bool { return r.screenState() == "idle" })
	r.mustTeamlead("send", dev, "Remember the codeword "+codeword+".")
	r.conversation(0, "the first conversation request")
	var id string
	r.waitFor("the conversation's id", stepDeadline, func() bool {
		for _, rec := range r.audit("--kind", "session") {
			if rec.Agent == dev && rec.Fields["session"] != "" {
				id = rec.Fields["session"]
				return true
			}
		}
		return false
	})
	r.logf("the conversation: %s", id)
	// A CLI writes its conversation down as the turn goes: killed before
	// the turn ends, there may be nothing to resume yet (seen once with
	// Claude Code under CI load: --resume exited 1 and the console started
	// a new conversation, as it should). The crash comes after the turn.
	r.waitFor("the CLI done with the turn", stepDeadline, func() bool {
		last := r.agent().LastOutput
		return r.screenState() == "idle" && !last.IsZero() && time.Since(last) > time.Second
	})
	r.kill()

	r.startConsole()
	r.waitFor("the resume recorded", stepDeadline, func() bool {
		for _, rec := range r.audit("--kind", "session") {
			if rec.Agent == dev && rec.Fields["resumed"] == "true" {
				if rec.Fields["session"] != id {
					t.Errorf("resumed conversation %q, want %q", rec.Fields["session"], id)
				}
				return true
			}
		}
		return false
	})
	// The CLI was started with the preset's resume arguments, the id in
	// them.
	r.waitFor("the CLI started with the conversation's id", stepDeadline, func() bool {
		for _, pid := range fakemodel.WithHome(r.home) {
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), id) {
				r.logf("the CLI's command line: %s", strings.ReplaceAll(strings.TrimSpace(string(cmd)), "\x00", " "))
				return true
			}
		}
		return false
	})
	r.waitFor("the CLI waiting for input again", startDeadline, func() bool { return r.screenState() == "idle" })
	// A resumed CLI draws the earlier conversation after its prompt shows:
	// text typed while it still loads can be wiped with its input box
	// (seen once with Gemini CLI on a loaded machine). Its screen still
	// for a second means it is done.
	r.waitFor("the resumed CLI's screen to settle", startDeadline, func() bool {
		last := r.agent().LastOutput
		return !last.IsZero() && time.Since(last) > time.Second
	})
	r.mustTeamlead("send", dev, "What was the codeword?")
	req := r.conversation(1, "the first request after the restart")
	if !strings.Contains(string(req.Body), codeword) {
		t.Errorf("the first request after the restart does not carry the earlier conversation (%q):\n%.2000s", codeword, req.Body)
	}
	r.stop()
}

// Claude Code gets teamlead's tools (its preset's mcp: --mcp-config of a
// file the console writes): the tools are in the model's first request; a
// send_message call is relayed once, from the agent; its result, which the
// model gets in the next request, is the acknowledgement; and nothing is
// typed back into the CLI for it, so the message costs no model turn
// beyond the call itself.
func TestClaudeCodeSendsThroughItsTool(t *testing.T) { sendsThroughItsTool(t, claudeCode) }

// TestCodexSendsThroughItsTool: the same with Codex (its preset's mcp: -c mcp_servers.teamlead…).
func TestCodexSendsThroughItsTool(t *testing.T) { sendsThroughItsTool(t, codex) }

// TestGeminiSendsThroughItsTool: the same with Gemini CLI (its system defaults list the server).
func TestGeminiSendsThroughItsTool(t *testing.T) { sendsThroughItsTool(t, gemini) }

// TestCopilotSendsThroughItsTool: the same with GitHub Copilot CLI (its
// preset's mcp: --additional-mcp-config @file, --allow-tool teamlead).
func TestCopilotSendsThroughItsTool(t *testing.T) { sendsThroughItsTool(t, copilot) }

// TestOpenCodeSendsThroughItsTool: the same with OpenCode (its preset's
// mcp: OPENCODE_CONFIG_CONTENT).
func TestOpenCodeSendsThroughItsTool(t *testing.T) { sendsThroughItsTool(t, opencode) }

func sendsThroughItsTool(t *testing.T, c cli) {
	tok := token()
	status := "tool sent copper lynx " + tok
	replies := []fakemodel.Reply{
		{Text: "Sending my status with the tool.", Tool: &fakemodel.ToolCall{Name: "mcp__teamlead__send_message",
			Input: map[string]any{"to": sink, "type": "status", "task": "T-1", "body": status}}},
		{When: "to sink", Text: "Sent."},
	}
	r := newRig(t, c, replies, rigOptions{sinkScript: "idle\n"})
	r.waitFor("the CLI waiting for input", startDeadline, func() bool { return r.screenState() == "idle" })
	r.mustTeamlead("send", dev, "Report your status on T-1 to sink.")
	first := r.conversation(0, "the first conversation request")
	for _, tool := range []string{"send_message", "ask_question", "hand_off"} {
		// Claude Code lists mcp__teamlead__send_message; Codex lists a
		// namespace mcp__teamlead holding send_message.
		// Gemini CLI lists mcp_teamlead_send_message, Copilot CLI
		// teamlead-send_message, OpenCode teamlead_send_message.
		if body := string(first.Body); !strings.Contains(body, "mcp__teamlead__"+tool) && !strings.Contains(body, "mcp_teamlead_"+tool) &&
			!strings.Contains(body, `"teamlead-`+tool+`"`) && !strings.Contains(body, `"teamlead_`+tool+`"`) &&
			!(strings.Contains(body, `"mcp__teamlead"`) && strings.Contains(body, `"`+tool+`"`)) {
			t.Errorf("the model's first request does not offer teamlead's %s", tool)
		}
	}
	r.waitFor("the status relayed to the sink", stepDeadline, func() bool { return strings.Contains(r.received(), status) })
	if got := r.received(); !strings.Contains(got, "from: dev\r") || strings.Count(got, status) != 1 {
		t.Errorf("the sink received %q", got)
	}
	after := r.conversation(1, "the request carrying the tool's result")
	msgs := r.audit("--kind", "message", "--task", "T-1")
	if len(msgs) != 1 || msgs[0].From != dev {
		t.Fatalf("T-1's messages in the audit: %+v", msgs)
	}
	if ack := "relayed " + msgs[0].MsgID + " to sink"; !strings.Contains(string(after.Body), ack) {
		t.Errorf("the tool's result in the model's next request lacks %q", ack)
	}
	// Nothing from team-lead was typed into the CLI, so no request beyond
	// the call's own two: the turn that called it and the one with its
	// result.
	r.waitFor("the CLI idle after the turn", stepDeadline, func() bool { return r.screenState() == "idle" })
	if d := r.delivered(func(d record) bool { return d.From == "team-lead" }); len(d) != 0 {
		t.Errorf("typed into the CLI from team-lead: %+v", d)
	}
	turns := 0
	for _, q := range r.model.Requests() {
		if q.Script >= 0 || q.Held {
			turns++
		}
	}
	if turns != 2 {
		t.Errorf("%d conversation requests, want 2 (the call and its result)", turns)
	}
}
