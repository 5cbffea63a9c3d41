package fakemodel

import (
	"encoding/json"
	"slices"
	"strings"
)

// Reply is one scripted conversation reply: text, a tool call, or text
// followed by a tool call.
type Reply struct {
	// Text is what the model says; it may be empty when Tool is set.
	Text string `json:"text,omitempty"`
	// Tool, when set, is a tool the model calls after the text.
	Tool *ToolCall `json:"tool,omitempty"`
	// When, if set, holds this entry back until a conversation request
	// whose body holds this text (as it is, or escaped in a JSON string;
	// plain words are best): the conversation requests before it are
	// answered with Config.Aside and use no entry.
	When string `json:"when,omitempty"`
}

// ToolCall is a scripted tool call. Name and Input call a tool by the name
// the client declared; Shell and File ask for a shell command or a new
// file in terms the server translates to whatever tool the client
// declared for it (Claude Code's Bash and Write, Codex's shell tool and
// apply_patch, Gemini CLI's run_shell_command and write_file, GitHub
// Copilot CLI's bash and create, OpenCode's bash and write). An MCP tool scripted as
// mcp__server__tool is sent by the name the client declared for it.
type ToolCall struct {
	// Name is the tool's name as the client declared it.
	Name string `json:"name,omitempty"`
	// Input is the tool's arguments.
	Input map[string]any `json:"input,omitempty"`
	// Shell is a command line for the client's shell tool.
	Shell string `json:"shell,omitempty"`
	// Description says why (Claude Code's and Gemini CLI's description,
	// Codex's justification for leaving its sandbox).
	Description string `json:"description,omitempty"`
	// File is the path of a file to create with Content (relative to the
	// project; Claude Code and Gemini CLI get it made absolute with Dir).
	File string `json:"file,omitempty"`
	// Content is the new file's text.
	Content string `json:"content,omitempty"`
	// Dir is the client's working directory, for tools that want absolute
	// paths.
	Dir string `json:"dir,omitempty"`
}

// Kinds of a SentCall.
const (
	// KindToolUse is a Messages API tool_use block.
	KindToolUse = "tool_use"
	// KindFunction is a Responses API function_call item.
	KindFunction = "function"
	// KindCustom is a Responses API custom_tool_call item (free-form input).
	KindCustom = "custom"
	// KindLocalShell is a Responses API local_shell_call item.
	KindLocalShell = "local_shell"
	// KindGemini is a Gemini API functionCall part.
	KindGemini = "gemini"
)

// SentCall is a tool call the server made, as it was sent.
type SentCall struct {
	// ID is the call's id: the tool_use id, the Responses API call_id, the
	// Gemini functionCall id. A tool result names it.
	ID string `json:"id"`
	// ItemID is the Responses API output item's id.
	ItemID string `json:"item_id,omitempty"`
	// Kind is how the call was sent (KindToolUse, KindFunction, …).
	Kind string `json:"kind"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Input is the tool's arguments (a local_shell_call's action).
	Input map[string]any `json:"input,omitempty"`
	// Text is a custom tool's free-form input.
	Text string `json:"text,omitempty"`
	// Namespace is the Responses API tool namespace the function is in
	// (Codex lists an MCP server's tools as namespace mcp__<server>);
	// Name is then the function's name inside it.
	Namespace string `json:"namespace,omitempty"`
}

// ToolResult is the result of a tool call that a request carries back.
type ToolResult struct {
	// ID is the call's id (empty when the client sent none).
	ID string `json:"id"`
	// Name is the tool's name, where the API says it (Gemini).
	Name string `json:"name,omitempty"`
	// Output is the result's text (JSON for a structured result).
	Output string `json:"output"`
	// IsError reports a result the client marked as an error (Claude
	// Code marks a refused call so).
	IsError bool `json:"is_error,omitempty"`
}

// Arguments is the call's input as the JSON text (or free-form text) that
// is streamed.
func (c *SentCall) Arguments() string {
	if c.Kind == KindCustom {
		return c.Text
	}
	b, _ := json.Marshal(c.Input)
	return string(b)
}

// tokens is a rough token count of the call, zero for none.
func (c *SentCall) tokens() int {
	if c == nil {
		return 0
	}
	return tokens(c.Arguments())
}

// responsesItem is the call as a Responses API output item.
func (c *SentCall) responsesItem(status string) map[string]any {
	item := map[string]any{"id": c.ItemID, "call_id": c.ID, "status": status}
	switch c.Kind {
	case KindCustom:
		item["type"] = "custom_tool_call"
		item["name"] = c.Name
		item["input"] = ""
		if status == "completed" {
			item["input"] = c.Text
		}
	case KindLocalShell:
		item["type"] = "local_shell_call"
		item["action"] = c.Input
	default:
		item["type"] = "function_call"
		item["name"] = c.Name
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		item["arguments"] = ""
		if status == "completed" {
			item["arguments"] = c.Arguments()
		}
	}
	return item
}

// Calls returns the tool calls made so far, in order.
func (s *Server) Calls() []SentCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SentCall
	for _, r := range s.reqs {
		if r.ToolCall != nil {
			out = append(out, *r.ToolCall)
		}
	}
	return out
}

// fresh keeps the results not carried by an earlier request (a client
// resends the whole conversation each time).
func (s *Server) fresh(results []ToolResult) []ToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.carried == nil {
		s.carried = map[string]bool{}
	}
	var out []ToolResult
	for _, r := range results {
		key := r.ID
		if key == "" {
			key = r.Name + "\x00" + r.Output
		}
		if !s.carried[key] {
			s.carried[key] = true
			out = append(out, r)
		}
	}
	return out
}

// Result returns the first result of the call with this id that a request
// carried back: whether the client ran (or refused) it and told the model.
func (s *Server) Result(id string) (ToolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reqs {
		for _, tr := range r.ToolResults {
			if tr.ID == id {
				return tr, true
			}
		}
	}
	return ToolResult{}, false
}

// declared is one tool of a request's tool list, whatever the API.
type declared struct {
	kind   string         // KindToolUse, KindFunction, KindCustom, KindLocalShell, KindGemini
	name   string         // the tool's name (namespace__name for a function in a namespace)
	params map[string]any // its JSON schema's properties
	ns     string         // the Responses API namespace it is in ("": none)
	fn     string         // its name in that namespace
}

// declaredTools reads a request's tool list: Messages API tools ({name,
// input_schema}), Responses API tools ({type: function|custom|local_shell,
// name, parameters}) or Gemini's ({functionDeclarations: [{name,
// parameters|parametersJsonSchema}]}).
func declaredTools(api string, tools []json.RawMessage) []declared {
	var out []declared
	for _, raw := range tools {
		var t struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name       string `json:"name"`
				Parameters schema `json:"parameters"`
			} `json:"tools"`
			InputSchema  schema `json:"input_schema"`
			Parameters   schema `json:"parameters"`
			FunctionDecl []struct {
				Name       string `json:"name"`
				Parameters schema `json:"parameters"`
				JSONSchema schema `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		switch api {
		case "messages":
			out = append(out, declared{kind: KindToolUse, name: t.Name, params: t.InputSchema.Properties})
		case "responses":
			switch t.Type {
			case "function":
				out = append(out, declared{kind: KindFunction, name: t.Name, params: t.Parameters.Properties})
			case "custom":
				out = append(out, declared{kind: KindCustom, name: t.Name})
			case "local_shell":
				out = append(out, declared{kind: KindLocalShell, name: "local_shell"})
			case "namespace":
				for _, f := range t.Tools {
					out = append(out, declared{KindFunction, t.Name + "__" + f.Name, f.Parameters.Properties, t.Name, f.Name})
				}
			}
		case "gemini":
			for _, f := range t.FunctionDecl {
				p := f.Parameters.Properties
				if p == nil {
					p = f.JSONSchema.Properties
				}
				out = append(out, declared{kind: KindGemini, name: f.Name, params: p})
			}
		}
	}
	return out
}

type schema struct {
	Properties map[string]any `json:"properties"`
}

// shellTools are the names CLIs give their shell tool, in order of
// preference (GitHub Copilot CLI's and OpenCode's is bash).
var shellTools = []string{"Bash", "bash", "shell", "shell_command", "exec_command", "run_shell_command", "local_shell"}

// fileTools are the names CLIs give their file-creating tool (GitHub
// Copilot CLI's is create, OpenCode's write).
var fileTools = []string{"Write", "write_file", "apply_patch", "create", "write"}

// resolve turns a scripted call into the call sent for this request,
// given the tools the request declared, and records it in req. A call the
// client declared no tool for is sent as scripted (Name and Input), or not
// at all when it was a Shell or File call: the reply is then text only,
// and req.Reply says so.
func (s *Server) resolve(req *Request, tc *ToolCall, tools []json.RawMessage) *SentCall {
	if tc == nil {
		return nil
	}
	decl := declaredTools(req.API, tools)
	kind := map[string]string{"messages": KindToolUse, "responses": KindFunction, "gemini": KindGemini}[req.API]
	call := &SentCall{Kind: kind, Name: tc.Name, Input: tc.Input}
	switch {
	case tc.Shell != "":
		d, ok := find(decl, shellTools)
		if !ok {
			req.Reply += " (no shell tool declared: call not sent)"
			return nil
		}
		call.Kind, call.Name, call.Input = d.kind, d.name, shellInput(d, tc)
	case tc.File != "":
		d, ok := find(decl, fileTools)
		if !ok {
			req.Reply += " (no file tool declared: call not sent)"
			return nil
		}
		call.Kind, call.Name = d.kind, d.name
		path := tc.File
		if tc.Dir != "" && !strings.HasPrefix(path, "/") && d.name != "apply_patch" {
			path = strings.TrimSuffix(tc.Dir, "/") + "/" + path
		}
		switch {
		case d.name == "apply_patch":
			patch := "*** Begin Patch\n*** Add File: " + path + "\n"
			for _, l := range strings.SplitAfter(strings.TrimSuffix(tc.Content, "\n"), "\n") {
				patch += "+" + strings.TrimSuffix(l, "\n") + "\n"
			}
			patch += "*** End Patch\n"
			if d.kind == KindCustom {
				call.Input, call.Text = nil, patch
			} else {
				call.Input = map[string]any{"input": patch}
			}
		case d.params["file_text"] != nil: // GitHub Copilot CLI's create
			call.Input = map[string]any{"path": path, "file_text": tc.Content}
		case d.params["filePath"] != nil: // OpenCode's write
			call.Input = map[string]any{"filePath": path, "content": tc.Content}
		default:
			call.Input = map[string]any{"file_path": path, "content": tc.Content}
		}
	}
	if call.Input == nil && call.Kind != KindCustom {
		call.Input = map[string]any{}
	}
	if call.Kind == KindFunction {
		call.Namespace, call.Name = namespaceOf(decl, call.Name)
	}
	if call.Namespace == "" {
		call.Name = mcpName(decl, call.Name)
	}
	switch call.Kind {
	case KindToolUse:
		call.ID = s.id("toolu")
	case KindGemini:
		call.ID = s.id("call")
	default:
		call.ID, call.ItemID = s.id("call"), s.id("fc")
	}
	req.ToolCall = call
	return call
}

// find returns the first declared tool named in names (in names' order).
func find(decl []declared, names []string) (declared, bool) {
	for _, n := range names {
		for _, d := range decl {
			if d.name == n {
				return d, true
			}
		}
	}
	return declared{}, false
}

// shellInput builds the arguments of a shell tool from its declared
// parameters: a command as an argv (["bash", "-lc", cmd]) or a string, a
// description or justification, and, where the tool has such a
// parameter, the request to run outside the sandbox (which is what makes
// Codex ask for approval under approval_policy on-request).
func shellInput(d declared, tc *ToolCall) map[string]any {
	if d.kind == KindLocalShell {
		return map[string]any{"type": "exec", "command": []string{"bash", "-lc", tc.Shell}}
	}
	in := map[string]any{}
	switch {
	case d.params == nil:
		in["command"] = tc.Shell
	case d.params["command"] != nil:
		if typeOf(d.params["command"]) == "array" {
			in["command"] = []string{"bash", "-lc", tc.Shell}
		} else {
			in["command"] = tc.Shell
		}
	case d.params["cmd"] != nil:
		in["cmd"] = tc.Shell
	default:
		in["command"] = tc.Shell
	}
	if tc.Description != "" {
		for _, k := range []string{"description", "justification"} {
			if d.params == nil && k == "description" || d.params[k] != nil {
				in[k] = tc.Description
			}
		}
	}
	if p, ok := d.params["sandbox_permissions"].(map[string]any); ok {
		esc := "require_escalated"
		if enum, ok := p["enum"].([]any); !ok || slices.Contains(enum, any(esc)) {
			in["sandbox_permissions"] = esc
		}
	}
	if d.params["with_escalated_permissions"] != nil {
		in["with_escalated_permissions"] = true
	}
	if d.params["workdir"] != nil && tc.Dir != "" {
		in["workdir"] = tc.Dir
	}
	return in
}

// typeOf is a JSON schema's type ("array", "string", …; the first of a
// list).
func typeOf(v any) string {
	m, _ := v.(map[string]any)
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			s, _ := t[0].(string)
			return s
		}
	}
	return ""
}

// text flattens a result's content: a string, a list of {type: text,
// text} blocks, or anything else as JSON.
func text(v any) string {
	switch c := v.(type) {
	case nil:
		return ""
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			if m, ok := b.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					parts = append(parts, t)
					continue
				}
			}
			parts = append(parts, text(b))
		}
		return strings.Join(parts, "\n")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// messagesResults reads the tool_result blocks of a Messages API
// request's conversation.
func messagesResults(body []byte) []ToolResult {
	var in struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &in) != nil {
		return nil
	}
	var out []ToolResult
	for _, msg := range in.Messages {
		blocks, _ := msg.Content.([]any)
		for _, b := range blocks {
			m, _ := b.(map[string]any)
			if m["type"] != "tool_result" {
				continue
			}
			id, _ := m["tool_use_id"].(string)
			isErr, _ := m["is_error"].(bool)
			out = append(out, ToolResult{ID: id, Output: text(m["content"]), IsError: isErr})
		}
	}
	return out
}

// responsesResults reads the tool call outputs of a Responses API
// request's input.
func responsesResults(body []byte) []ToolResult {
	var in struct {
		Input any `json:"input"`
	}
	if json.Unmarshal(body, &in) != nil {
		return nil
	}
	items, _ := in.Input.([]any)
	var out []ToolResult
	for _, it := range items {
		m, _ := it.(map[string]any)
		switch m["type"] {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			id, _ := m["call_id"].(string)
			out = append(out, ToolResult{ID: id, Output: text(m["output"])})
		}
	}
	return out
}

// geminiResults reads the functionResponse parts of a Gemini API
// request's contents.
func geminiResults(body []byte) []ToolResult {
	var in struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					ID       string         `json:"id"`
					Name     string         `json:"name"`
					Response map[string]any `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &in) != nil {
		return nil
	}
	var out []ToolResult
	for _, c := range in.Contents {
		for _, p := range c.Parts {
			f := p.FunctionResponse
			if f == nil {
				continue
			}
			_, isErr := f.Response["error"]
			output := text(f.Response["output"])
			if output == "" {
				output = text(f.Response)
			}
			out = append(out, ToolResult{ID: f.ID, Name: f.Name, Output: output, IsError: isErr})
		}
	}
	return out
}

// namespaceOf is the namespace a function's scripted name
// (mcp__teamlead__send_message) was declared in and its name there, or no
// namespace and the name as it is.
func namespaceOf(decl []declared, name string) (namespace, fn string) {
	for _, d := range decl {
		if d.kind == KindFunction && d.name == name && d.ns != "" {
			return d.ns, d.fn
		}
	}
	return "", name
}

// mcpName is the name the client declared for an MCP tool scripted as
// mcp__server__tool: Claude Code's and Codex's own form, Gemini CLI's
// mcp_server_tool, GitHub Copilot CLI's server-tool, OpenCode's
// server_tool; the scripted name when it declared none of them.
func mcpName(decl []declared, name string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return name
	}
	server, tool, ok := strings.Cut(rest, "__")
	if !ok {
		return name
	}
	for _, alt := range []string{name, "mcp_" + server + "_" + tool, server + "-" + tool, server + "_" + tool} {
		for _, d := range decl {
			if d.name == alt {
				return alt
			}
		}
	}
	return name
}
