package fakemodel

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// claudeTools is the part of Claude Code's tool list the server reads.
const claudeTools = `[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}}}},` +
	`{"name":"Write","input_schema":{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}}}}]`

// TestMessagesToolUse: a scripted Bash call is streamed as a tool_use
// block after the text, its input in input_json_delta pieces; the next
// request carries the result, which the server records once.
func TestMessagesToolUse(t *testing.T) {
	s := New(Config{Chunk: 5, Replies: []Reply{
		{Text: "Cleaning up.", Tool: &ToolCall{Shell: "rm -rf build/", Description: "Remove the build directory"}},
		{Tool: &ToolCall{File: "notes/plan.md", Content: "# Plan\n", Dir: "/p"}},
		{Text: "Done."},
	}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	first := `{"model":"claude-x","stream":true,"tools":` + claudeTools + `,"messages":[{"role":"user","content":"clean"}]}`
	evs := readSSE(t, post(t, ts.URL+"/v1/messages?beta=true", first).Body)
	var text, args strings.Builder
	var block map[string]any
	var stop any
	for _, e := range evs {
		switch e.Name {
		case "content_block_start":
			if cb := e.Data["content_block"].(map[string]any); cb["type"] == "tool_use" {
				block = cb
				if e.Data["index"] != float64(1) {
					t.Errorf("tool_use at index %v, want 1", e.Data["index"])
				}
			}
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				text.WriteString(d["text"].(string))
			case "input_json_delta":
				args.WriteString(d["partial_json"].(string))
			}
		case "message_delta":
			stop = e.Data["delta"].(map[string]any)["stop_reason"]
		}
	}
	if text.String() != "Cleaning up." || block == nil || block["name"] != "Bash" || stop != "tool_use" {
		t.Fatalf("text %q, block %v, stop %v", text.String(), block, stop)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(args.String()), &in); err != nil {
		t.Fatalf("input %q: %v", args.String(), err)
	}
	if !reflect.DeepEqual(in, map[string]any{"command": "rm -rf build/", "description": "Remove the build directory"}) {
		t.Errorf("input %v", in)
	}
	id := block["id"].(string)
	calls := s.Calls()
	if len(calls) != 1 || calls[0].ID != id || calls[0].Name != "Bash" {
		t.Fatalf("calls %+v", calls)
	}
	if _, ok := s.Result(id); ok {
		t.Fatal("a result before any came back")
	}

	// Approved and run: the next request carries the result.
	second := `{"model":"claude-x","stream":false,"tools":` + claudeTools + `,"messages":[{"role":"user","content":"clean"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":[{"type":"text","text":"(Bash completed with no output)"}]}]}]}`
	// Not streamed, but listing tools: still an aside (Claude Code's
	// start-up call is the only unstreamed one); streamed it is the
	// conversation.
	second = strings.Replace(second, `"stream":false`, `"stream":true`, 1)
	evs = readSSE(t, post(t, ts.URL+"/v1/messages", second).Body)
	r, ok := s.Result(id)
	if !ok || r.Output != "(Bash completed with no output)" || r.IsError {
		t.Fatalf("result %+v, %v", r, ok)
	}
	var write map[string]any
	for _, e := range evs {
		if e.Name == "content_block_start" {
			write = e.Data["content_block"].(map[string]any)
			if e.Data["index"] != float64(0) {
				t.Errorf("a call without text starts at index %v", e.Data["index"])
			}
		}
	}
	if write["type"] != "tool_use" || write["name"] != "Write" {
		t.Errorf("second reply starts with %v", write)
	}

	// The third request resends the history: the old result is not
	// reported again; a refusal is.
	third := strings.Replace(second, `"content":"clean"}`, `"content":"clean"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","is_error":true,"content":"The user doesn't want to proceed"}]}`, 1)
	readSSE(t, post(t, ts.URL+"/v1/messages", third).Body)
	reqs := s.Requests()
	last := reqs[len(reqs)-1]
	if len(last.ToolResults) != 1 || last.ToolResults[0].ID != "toolu_x" || !last.ToolResults[0].IsError {
		t.Errorf("third request's results %+v", last.ToolResults)
	}
	if w := reqs[1].ToolCall; w == nil || !reflect.DeepEqual(w.Input, map[string]any{"file_path": "/p/notes/plan.md", "content": "# Plan\n"}) {
		t.Errorf("write call %+v", w)
	}
}

// TestMessagesToolUseUnstreamed: a whole (not streamed) reply holds the
// tool_use block too.
func TestMessagesToolUseUnstreamed(t *testing.T) {
	s := New(Config{Replies: []Reply{{Tool: &ToolCall{Name: "Bash", Input: map[string]any{"command": "ls"}}}}})
	m := s.message("claude-x", "", &SentCall{ID: "toolu_1", Kind: KindToolUse, Name: "Bash", Input: map[string]any{"command": "ls"}})
	content := m["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["type"] != "tool_use" || m["stop_reason"] != "tool_use" {
		t.Errorf("message %v", m)
	}
}

// codexTools is the part of Codex 0.169.0's tool list the server reads.
const codexTools = `[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{` +
	`"cmd":{"type":"string"},"justification":{"type":"string"},"sandbox_permissions":{"type":"string"},"workdir":{"type":"string"}}}},` +
	`{"type":"function","name":"write_stdin","parameters":{"type":"object","properties":{"chars":{"type":"string"}}}}]`

// TestResponsesFunctionCall: a shell call becomes a function_call of the
// client's shell tool with the arguments its schema asks for (escalated
// out of the sandbox, so that Codex asks); the function_call_output of the
// next request is recorded.
func TestResponsesFunctionCall(t *testing.T) {
	s := New(Config{Chunk: 8, Replies: []Reply{
		{Text: "Cleaning.", Tool: &ToolCall{Shell: "rm -rf build/", Description: "Remove the build directory", Dir: "/p"}},
		{Text: "Done."},
	}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	evs := readSSE(t, post(t, ts.URL+"/v1/responses", `{"model":"gpt-x","stream":true,"tools":`+codexTools+`,"input":[]}`).Body)
	var names []string
	var args strings.Builder
	var done map[string]any
	for _, e := range evs {
		if n := len(names); n == 0 || names[n-1] != e.Name {
			names = append(names, e.Name)
		}
		switch e.Name {
		case "response.function_call_arguments.delta":
			args.WriteString(e.Data["delta"].(string))
		case "response.output_item.done":
			if it := e.Data["item"].(map[string]any); it["type"] == "function_call" {
				done = it
			}
		}
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.output_item.done", "response.completed"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("events %v\nwant %v", names, want)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(args.String()), &in); err != nil {
		t.Fatal(err)
	}
	wantIn := map[string]any{"cmd": "rm -rf build/", "justification": "Remove the build directory", "sandbox_permissions": "require_escalated", "workdir": "/p"}
	if !reflect.DeepEqual(in, wantIn) || done["name"] != "exec_command" || done["arguments"] != args.String() {
		t.Errorf("arguments %v, item %v", in, done)
	}
	callID := done["call_id"].(string)
	completed := evs[len(evs)-1].Data["response"].(map[string]any)["output"].([]any)
	if len(completed) != 2 {
		t.Errorf("completed output %v", completed)
	}

	next := `{"model":"gpt-x","stream":true,"tools":` + codexTools + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"clean"}]},` +
		`{"type":"function_call","call_id":"` + callID + `","name":"exec_command","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"` + callID + `","output":"Process exited with code 0"}]}`
	readSSE(t, post(t, ts.URL+"/v1/responses", next).Body)
	if r, ok := s.Result(callID); !ok || r.Output != "Process exited with code 0" {
		t.Errorf("result %+v %v", r, ok)
	}
}

// TestResponsesOtherShells: an argv command schema, a custom apply_patch
// tool and the built-in local_shell.
func TestResponsesOtherShells(t *testing.T) {
	for _, c := range []struct {
		tools string
		call  ToolCall
		check func(t *testing.T, item map[string]any)
	}{
		{`[{"type":"function","name":"shell","parameters":{"properties":{"command":{"type":"array"},"with_escalated_permissions":{"type":"boolean"}}}}]`,
			ToolCall{Shell: "ls"},
			func(t *testing.T, item map[string]any) {
				var in map[string]any
				json.Unmarshal([]byte(item["arguments"].(string)), &in)
				if !reflect.DeepEqual(in, map[string]any{"command": []any{"bash", "-lc", "ls"}, "with_escalated_permissions": true}) {
					t.Errorf("arguments %v", in)
				}
			}},
		{`[{"type":"custom","name":"apply_patch"}]`,
			ToolCall{File: "a.txt", Content: "x\ny\n"},
			func(t *testing.T, item map[string]any) {
				if item["type"] != "custom_tool_call" || item["input"] != "*** Begin Patch\n*** Add File: a.txt\n+x\n+y\n*** End Patch\n" {
					t.Errorf("item %v", item)
				}
			}},
		{`[{"type":"local_shell"}]`,
			ToolCall{Shell: "ls"},
			func(t *testing.T, item map[string]any) {
				if item["type"] != "local_shell_call" || !reflect.DeepEqual(item["action"], map[string]any{"type": "exec", "command": []any{"bash", "-lc", "ls"}}) {
					t.Errorf("item %v", item)
				}
			}},
	} {
		s := New(Config{Replies: []Reply{{Tool: &c.call}}})
		ts := httptest.NewServer(s)
		evs := readSSE(t, post(t, ts.URL+"/v1/responses", `{"stream":true,"tools":`+c.tools+`,"input":[]}`).Body)
		var item map[string]any
		for _, e := range evs {
			if e.Name == "response.output_item.done" {
				item = e.Data["item"].(map[string]any)
			}
		}
		c.check(t, item)
		ts.Close()
	}
}

// TestNoSuchTool: a shell call to a client that declared no shell tool
// is left out; the reply is its text.
func TestNoSuchTool(t *testing.T) {
	s := New(Config{Replies: []Reply{{Text: "hi", Tool: &ToolCall{Shell: "ls"}}}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	readOnly := strings.Replace(streamed, `"Bash"`, `"Read"`, 1)
	if got := streamedText(t, post(t, ts.URL+"/v1/messages", readOnly)); got != "hi" {
		t.Errorf("reply %q", got)
	}
	if r := s.Requests()[0]; r.ToolCall != nil || !strings.Contains(r.Reply, "no shell tool") {
		t.Errorf("recorded %+v", r)
	}
}

// TestGeminiFunctionCall: Gemini CLI's run_shell_command is called in the
// last streamed chunk; its functionResponse is recorded.
func TestGeminiFunctionCall(t *testing.T) {
	s := New(Config{Chunk: 4, Replies: []Reply{{Text: "Cleaning.", Tool: &ToolCall{Shell: "rm -rf build/", Description: "Remove it"}}}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	tools := `[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"properties":{"command":{"type":"string"},"description":{"type":"string"}}}}]}]`
	resp := post(t, ts.URL+"/v1beta/models/g:streamGenerateContent?alt=sse", `{"contents":[],"tools":`+tools+`}`)
	b, _ := io.ReadAll(resp.Body)
	frames := strings.Split(strings.TrimSpace(string(b)), "\r\n\r\n")
	var last struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         *string
					FunctionCall *struct {
						ID, Name string
						Args     map[string]any
					}
				}
			}
			FinishReason string
		}
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(frames[len(frames)-1], "data: ")), &last); err != nil {
		t.Fatal(err)
	}
	parts := last.Candidates[0].Content.Parts
	if len(parts) != 1 || parts[0].FunctionCall == nil || parts[0].FunctionCall.Name != "run_shell_command" || last.Candidates[0].FinishReason != "STOP" ||
		!reflect.DeepEqual(parts[0].FunctionCall.Args, map[string]any{"command": "rm -rf build/", "description": "Remove it"}) {
		t.Fatalf("last frame %s", frames[len(frames)-1])
	}
	id := parts[0].FunctionCall.ID
	next := `{"contents":[{"role":"user","parts":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":{"output":"Command: rm -rf build/\nExit Code: 0"}}}]}],"tools":` + tools + `}`
	post(t, ts.URL+"/v1beta/models/g:streamGenerateContent?alt=sse", next)
	if r, ok := s.Result(id); !ok || r.Name != "run_shell_command" || !strings.Contains(r.Output, "Exit Code: 0") {
		t.Errorf("result %+v %v", r, ok)
	}
}

// TestCopilotAndOpenCodeTools: GitHub Copilot CLI's and OpenCode's tool
// lists (Messages API): a Shell call goes to their bash, a File call to
// Copilot's create (path, file_text) and OpenCode's write (filePath,
// content), and an MCP tool scripted as mcp__teamlead__send_message to
// the name each declared (teamlead-send_message, teamlead_send_message).
func TestCopilotAndOpenCodeTools(t *testing.T) {
	send := &ToolCall{Name: "mcp__teamlead__send_message", Input: map[string]any{"to": "sink"}}
	for _, c := range []struct {
		name, tools string
		file        map[string]any
		mcp         string
	}{
		{"copilot", `[{"name":"bash","input_schema":{"properties":{"command":{},"description":{},"mode":{}}}},` +
			`{"name":"create","input_schema":{"properties":{"path":{},"file_text":{}}}},{"name":"teamlead-send_message","input_schema":{}}]`,
			map[string]any{"path": "/p/notes/plan.md", "file_text": "# Plan\n"}, "teamlead-send_message"},
		{"opencode", `[{"name":"bash","input_schema":{"properties":{"command":{},"timeout":{},"workdir":{}}}},` +
			`{"name":"write","input_schema":{"properties":{"filePath":{},"content":{}}}},{"name":"teamlead_send_message","input_schema":{}}]`,
			map[string]any{"filePath": "/p/notes/plan.md", "content": "# Plan\n"}, "teamlead_send_message"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(Config{Replies: []Reply{
				{Tool: &ToolCall{Shell: "rm -rf build/", Description: "Remove it"}},
				{Tool: &ToolCall{File: "notes/plan.md", Content: "# Plan\n", Dir: "/p"}},
				{Tool: send},
			}})
			ts := httptest.NewServer(s)
			defer ts.Close()
			for range 3 {
				post(t, ts.URL+"/v1/messages", `{"model":"m","stream":true,"tools":`+c.tools+`,"messages":[{"role":"user","content":"go"}]}`).Body.Close()
			}
			calls := s.Calls()
			if len(calls) != 3 {
				t.Fatalf("calls %+v", calls)
			}
			if calls[0].Name != "bash" || calls[0].Input["command"] != "rm -rf build/" {
				t.Errorf("shell call %+v", calls[0])
			}
			if calls[1].Name == "" || !reflect.DeepEqual(calls[1].Input, c.file) {
				t.Errorf("file call %+v, want input %v", calls[1], c.file)
			}
			if calls[2].Name != c.mcp {
				t.Errorf("MCP call named %q, want %q", calls[2].Name, c.mcp)
			}
		})
	}
}
