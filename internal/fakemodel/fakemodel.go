// Package fakemodel is a scripted model server for running the real agent
// CLIs (Claude Code, Codex, Gemini CLI) offline, on loopback, in tests and
// fixture captures. It speaks just enough of Anthropic's Messages API (POST
// /v1/messages, streamed as server-sent events or not), of OpenAI's
// Responses API (POST /v1/responses, streamed) and of Google's Gemini API
// (POST /v1beta/models/M:generateContent and :streamGenerateContent?alt=sse)
// for those CLIs to render the replies it is scripted to give.
//
// Replies come from a script: a list of canned replies, one per
// conversation request, the last one repeated once the script runs out. A
// reply is text, a call of one of the client's tools (a Bash command, a
// file edit: what makes a CLI show its permission dialog), or both.
// Requests that are not part of the conversation (Claude Code's start-up
// call, which is not streamed, and requests that list no tools, such as a
// title or topic request) are answered with Config.Aside and consume no
// script entry, so the script stays aligned with what the user typed. An
// entry can also wait for the conversation request that holds some text
// (Reply.When): the ones before it get the aside, so that prompts a test
// does not control (an acknowledgement typed into the CLI) do not shift
// the script.
//
// Every request is recorded (Requests) with the tool results it carries
// back, so a test can tell a tool call that was approved and run (the next
// request holds its result) from one that was denied; when Config.LogPath
// is set, each is also appended to that file as one JSON object per line.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Config sets up a Server.
type Config struct {
	// Script holds the texts of the conversation replies, one per
	// conversation request; the last is repeated. An empty script
	// answers "OK". Replies, when not empty, is used instead.
	Script []string
	// Replies is the script when replies call tools: one per
	// conversation request, the last repeated.
	Replies []Reply
	// Aside is the reply to requests outside the conversation; "OK" when
	// empty.
	Aside string
	// Chunk is the most bytes of text sent in one streamed delta (cut at
	// a rune boundary); 16 when zero or less.
	Chunk int
	// Delay is the pause between two streamed deltas, so that a client
	// renders the reply as it arrives, as from a real model. Zero sends
	// them all at once.
	Delay time.Duration
	// Model is the model name put in replies when the request names none.
	Model string
	// LogPath, when set, is a file each request is appended to, one JSON
	// object per line.
	LogPath string
}

// Request is one request the server received.
type Request struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Query  string    `json:"query,omitempty"`
	API    string    `json:"api"`    // "messages", "responses", "gemini", "count_tokens", "models" or "unknown"
	Stream bool      `json:"stream"` // the request asked for a streamed reply
	Script int       `json:"script"` // index of the script entry used, or -1 for none
	// Held reports a conversation request answered with the aside
	// because the next script entry waits for text (Reply.When) the
	// request does not hold.
	Held  bool   `json:"held,omitempty"`
	Reply string `json:"reply,omitempty"`
	// ToolCall is the tool call the reply made, if any.
	ToolCall *SentCall `json:"tool_call,omitempty"`
	// ToolResults are the results of tool calls that the request carries
	// back for the first time (a client resends the whole conversation;
	// earlier requests' results are left out): present once a tool call
	// was run, or refused, by the client.
	ToolResults []ToolResult `json:"tool_results,omitempty"`
	// Usage is the usage the reply reported (Messages and Responses APIs), as a CLI
	// would record it.
	Usage *Usage          `json:"usage,omitempty"`
	Body  json.RawMessage `json:"body,omitempty"`
	// RawBody holds a body that is not JSON.
	RawBody string `json:"raw_body,omitempty"`
}

// Usage is what a reply said it used.
type Usage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// Server is a running fake model. Its methods are safe for concurrent use.
type Server struct {
	cfg Config
	ln  net.Listener
	srv *http.Server
	url string

	mu   sync.Mutex
	next int // index of the next script entry
	reqs []Request
	log  *os.File
	seq  int // ids of messages and responses
	// carried holds the tool results already carried by a request.
	carried map[string]bool
}

// Start listens on 127.0.0.1 at a free port and serves until Close.
func Start(cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := New(cfg)
	if cfg.LogPath != "" {
		f, err := os.OpenFile(cfg.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			ln.Close()
			return nil, err
		}
		s.log = f
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// New returns a Server that is not listening, for use as an http.Handler
// (with net/http/httptest, say). Config.LogPath is ignored: only Start
// opens the log.
func New(cfg Config) *Server {
	if cfg.Chunk <= 0 {
		cfg.Chunk = 16
	}
	if cfg.Aside == "" {
		cfg.Aside = "OK"
	}
	if cfg.Model == "" {
		cfg.Model = "fake-model"
	}
	return &Server{cfg: cfg}
}

// URL is the server's base URL, "http://127.0.0.1:PORT", without a path
// (Claude Code's ANTHROPIC_BASE_URL; Codex wants URL()+"/v1").
func (s *Server) URL() string { return s.url }

// Close stops the server, cutting any reply still being streamed.
func (s *Server) Close() error {
	var err error
	if s.srv != nil {
		err = s.srv.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil {
		if e := s.log.Close(); err == nil {
			err = e
		}
		s.log = nil
	}
	return err
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Used is the number of script entries used so far (conversation requests
// answered).
func (s *Server) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// maxBody caps a request body; a CLI's request with its tool list and
// system prompt is well under it.
const maxBody = 32 << 20

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Script: -1}
	if json.Valid(body) {
		req.Body = json.RawMessage(body)
	} else if len(body) > 0 {
		req.RawBody = string(body)
	}
	var in struct {
		Model  string            `json:"model"`
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &in)
	req.Stream = in.Stream
	model := in.Model
	if model == "" {
		model = s.cfg.Model
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		req.API = "count_tokens"
		s.record(req)
		writeJSON(w, map[string]any{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodPost && path == "/v1/messages":
		req.API = "messages"
		reply := s.pick(&req, in.Stream && len(in.Tools) > 0, body)
		call := s.resolve(&req, reply.Tool, in.Tools)
		if req.Script >= 0 || req.Held {
			req.ToolResults = s.fresh(messagesResults(body))
		}
		req.Usage = &Usage{Input: 10, Output: tokens(reply.Text) + call.tokens()}
		s.record(req)
		if in.Stream {
			s.streamMessage(w, r, model, reply.Text, call)
		} else {
			writeJSON(w, s.message(model, reply.Text, call))
		}
	case r.Method == http.MethodPost && path == "/v1/responses":
		req.API = "responses"
		reply := s.pick(&req, len(in.Tools) > 0, body)
		call := s.resolve(&req, reply.Tool, in.Tools)
		if req.Script >= 0 || req.Held {
			req.ToolResults = s.fresh(responsesResults(body))
		}
		req.Usage = &Usage{Input: 10, Output: tokens(reply.Text) + call.tokens()}
		s.record(req)
		if in.Stream {
			s.streamResponse(w, r, model, reply.Text, call)
		} else {
			writeJSON(w, s.response(model, reply.Text, "completed", call))
		}
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/") && strings.Contains(path, ":"):
		s.gemini(w, r, &req, body)
	case r.Method == http.MethodGet && path == "/v1/models":
		req.API = "models"
		s.record(req)
		writeJSON(w, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": s.cfg.Model, "object": "model", "type": "model", "display_name": s.cfg.Model, "created": 0, "owned_by": "fakemodel"},
		}})
	default:
		req.API = "unknown"
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"fakemodel: no such endpoint"}}`)
	}
}

// pick chooses the reply to req, whose body is body: the next script entry
// for a conversation request (unless that entry waits for text the body
// does not hold), else the aside.
func (s *Server) pick(req *Request, conversation bool, body []byte) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !conversation {
		req.Reply = s.cfg.Aside
		return Reply{Text: s.cfg.Aside}
	}
	i := s.next
	reply := Reply{Text: "OK"}
	if n := len(s.cfg.Replies); n > 0 {
		reply = s.cfg.Replies[min(i, n-1)]
	} else if n := len(s.cfg.Script); n > 0 {
		reply = Reply{Text: s.cfg.Script[min(i, n-1)]}
	}
	if reply.When != "" && !holds(body, reply.When) {
		req.Held = true
		req.Reply = s.cfg.Aside
		return Reply{Text: s.cfg.Aside}
	}
	s.next++
	req.Script, req.Reply = i, reply.Text
	return reply
}

// holds reports whether a request body holds text, as it is or as it is
// escaped in a JSON string.
func holds(body []byte, text string) bool {
	if bytes.Contains(body, []byte(text)) {
		return true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(text) != nil {
		return false
	}
	quoted := bytes.TrimSpace(b.Bytes())
	if bytes.Contains(body, quoted[1:len(quoted)-1]) {
		return true
	}
	// Go's encoder (and some clients) escape <, > and & too.
	b.Reset()
	json.NewEncoder(&b).Encode(text)
	quoted = bytes.TrimSpace(b.Bytes())
	return bytes.Contains(body, quoted[1:len(quoted)-1])
}

// record keeps req and appends it to the log.
func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if s.log != nil {
		b, err := json.Marshal(req)
		if err == nil {
			s.log.Write(append(b, '\n'))
		}
	}
}

func (s *Server) id(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s_fake%06d", prefix, s.seq)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// tokens is a rough token count of text, for usage fields.
func tokens(text string) int { return len(text)/4 + 1 }

// Pieces cuts text into pieces of at most n bytes (n <= 0: 16), each
// ending at a rune boundary: the text deltas a streamed reply carries.
func Pieces(text string, n int) []string {
	if n <= 0 {
		n = 16
	}
	var out []string
	for len(text) > 0 {
		k := min(n, len(text))
		for k < len(text) && k > 0 && !utf8.RuneStart(text[k]) {
			k--
		}
		if k == 0 { // a rune longer than n: take it whole
			_, k = utf8.DecodeRuneInString(text)
		}
		out = append(out, text[:k])
		text = text[k:]
	}
	return out
}

// message is a whole Messages API reply: text (when not empty, or when
// there is no call) and the tool call, if any.
func (s *Server) message(model, text string, call *SentCall) map[string]any {
	content := []any{}
	if text != "" || call == nil {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	stop := "end_turn"
	if call != nil {
		content = append(content, map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": call.Input})
		stop = "tool_use"
	}
	return map[string]any{
		"id":            s.id("msg"),
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage":         map[string]any{"input_tokens": 10, "output_tokens": tokens(text) + call.tokens()},
	}
}

// sse writes server-sent events and flushes each one. It stops writing
// (and reports it) once the client is gone.
type sse struct {
	w   http.ResponseWriter
	f   http.Flusher
	err error
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (e *sse) event(name string, v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	if _, e.err = e.w.Write(buf.Bytes()); e.err == nil && e.f != nil {
		e.f.Flush()
	}
}

// data writes an event that has no name, only data (the Gemini API's form).
func (e *sse) data(v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	if _, e.err = fmt.Fprintf(e.w, "data: %s\r\n\r\n", b); e.err == nil && e.f != nil {
		e.f.Flush()
	}
}

// pause waits d between deltas, or until the client goes away.
func pause(r *http.Request, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.Context().Done():
		return errors.New("client gone")
	}
}

// streamMessage writes text, then the tool call if any, as a streamed
// Messages API reply: text in text_delta pieces, the call's input in
// input_json_delta pieces.
func (s *Server) streamMessage(w http.ResponseWriter, r *http.Request, model, text string, call *SentCall) {
	e := newSSE(w)
	msg := s.message(model, "", nil)
	msg["content"] = []any{}
	msg["stop_reason"] = nil
	msg["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 1}
	e.event("message_start", map[string]any{"type": "message_start", "message": msg})
	index := 0
	if text != "" || call == nil {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}})
		e.event("ping", map[string]any{"type": "ping"})
		for i, p := range Pieces(text, s.cfg.Chunk) {
			if i > 0 && pause(r, s.cfg.Delay) != nil {
				return
			}
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": p}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	stop := "end_turn"
	if call != nil {
		stop = "tool_use"
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": map[string]any{}}})
		for i, p := range Pieces(call.Arguments(), s.cfg.Chunk) {
			if i > 0 && pause(r, s.cfg.Delay) != nil {
				return
			}
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": tokens(text) + call.tokens()}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// response is a Responses API response object; text, when not empty, is
// its first output message, and call, when not nil, its tool call item.
func (s *Server) response(model, text, status string, call *SentCall) map[string]any {
	out := []any{}
	if text != "" {
		out = append(out, s.outputMessage(s.id("msg"), text, "completed"))
	}
	if call != nil {
		out = append(out, call.responsesItem("completed"))
	}
	n := tokens(text) + call.tokens()
	return map[string]any{
		"id":         s.id("resp"),
		"object":     "response",
		"created_at": time.Now().Unix(),
		"status":     status,
		"model":      model,
		"output":     out,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": n, "total_tokens": 10 + n,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}},
	}
}

func (s *Server) outputMessage(id, text, status string) map[string]any {
	content := []any{}
	if status == "completed" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "id": id, "status": status, "role": "assistant", "content": content}
}

// streamResponse writes text, then the tool call if any, as a streamed
// Responses API reply.
func (s *Server) streamResponse(w http.ResponseWriter, r *http.Request, model, text string, call *SentCall) {
	e := newSSE(w)
	resp := s.response(model, "", "in_progress", nil)
	respID := resp["id"]
	seq := 0
	ev := func(name string, fields map[string]any) {
		fields["type"] = name
		fields["sequence_number"] = seq
		seq++
		e.event(name, fields)
	}
	ev("response.created", map[string]any{"response": resp})
	ev("response.in_progress", map[string]any{"response": resp})
	var output []any
	if text != "" || call == nil {
		itemID := s.id("msg")
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": s.outputMessage(itemID, text, "in_progress")})
		part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": part})
		for i, p := range Pieces(text, s.cfg.Chunk) {
			if i > 0 && pause(r, s.cfg.Delay) != nil {
				return
			}
			ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": p})
		}
		ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": text})
		ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
		ev("response.output_item.done", map[string]any{"output_index": 0, "item": s.outputMessage(itemID, text, "completed")})
		output = append(output, s.outputMessage(itemID, text, "completed"))
	}
	if call != nil {
		index := len(output)
		ev("response.output_item.added", map[string]any{"output_index": index, "item": call.responsesItem("in_progress")})
		if call.Kind == KindFunction || call.Kind == KindCustom {
			delta, done := "response.function_call_arguments.delta", "response.function_call_arguments.done"
			field := "arguments"
			if call.Kind == KindCustom {
				delta, done, field = "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done", "input"
			}
			args := call.Arguments()
			for i, p := range Pieces(args, s.cfg.Chunk) {
				if i > 0 && pause(r, s.cfg.Delay) != nil {
					return
				}
				ev(delta, map[string]any{"item_id": call.ItemID, "output_index": index, "delta": p})
			}
			ev(done, map[string]any{"item_id": call.ItemID, "output_index": index, field: args})
		}
		ev("response.output_item.done", map[string]any{"output_index": index, "item": call.responsesItem("completed")})
		output = append(output, call.responsesItem("completed"))
	}
	done := s.response(model, "", "completed", nil)
	done["id"] = respID
	done["output"] = output
	n := tokens(text) + call.tokens()
	done["usage"] = map[string]any{"input_tokens": 10, "output_tokens": n, "total_tokens": 10 + n,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	ev("response.completed", map[string]any{"response": done})
}

// gemini answers a Gemini API call: generateContent, streamGenerateContent
// (server-sent events with alt=sse, else a JSON array) or countTokens. A
// conversation request is one that declares tools; a side request that
// asks for JSON (the CLI's routing and next-speaker checks) gets "{}".
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, req *Request, body []byte) {
	req.API = "gemini"
	model, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	var in struct {
		Tools            []json.RawMessage `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	_ = json.Unmarshal(body, &in)
	switch method {
	case "countTokens":
		s.record(*req)
		writeJSON(w, map[string]any{"totalTokens": len(body)/4 + 1})
		return
	case "generateContent", "streamGenerateContent":
	default:
		s.record(*req)
		http.Error(w, `{"error":{"code":404,"message":"fakemodel: no such method","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	req.Stream = method == "streamGenerateContent"
	var text string
	var call *SentCall
	if len(in.Tools) == 0 && in.GenerationConfig.ResponseMimeType == "application/json" {
		text, req.Reply = "{}", "{}"
	} else {
		reply := s.pick(req, len(in.Tools) > 0, body)
		text = reply.Text
		call = s.resolve(req, reply.Tool, in.Tools)
		if req.Script >= 0 || req.Held {
			req.ToolResults = s.fresh(geminiResults(body))
		}
	}
	req.Usage = &Usage{Input: 10, Output: tokens(text) + call.tokens()} // as usageMetadata says below
	s.record(*req)
	// The function call rides in the last chunk, after the text.
	chunk := func(t string, last bool) map[string]any {
		var parts []any
		if t != "" || !last || call == nil {
			parts = append(parts, map[string]any{"text": t})
		}
		if last && call != nil {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": call.ID, "name": call.Name, "args": call.Input}})
		}
		c := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		out := map[string]any{"candidates": []any{c}, "modelVersion": model}
		if last {
			n := tokens(text) + call.tokens()
			c["finishReason"] = "STOP"
			out["usageMetadata"] = map[string]any{"promptTokenCount": 10, "candidatesTokenCount": n, "totalTokenCount": 10 + n}
		}
		return out
	}
	if !req.Stream {
		writeJSON(w, chunk(text, true))
		return
	}
	pieces := Pieces(text, s.cfg.Chunk)
	if call != nil {
		pieces = append(pieces, "") // the call, alone in the last chunk
	}
	if len(pieces) == 0 {
		pieces = []string{""}
	}
	if r.URL.Query().Get("alt") != "sse" {
		var all []any
		for i, p := range pieces {
			all = append(all, chunk(p, i == len(pieces)-1))
		}
		writeJSON(w, all)
		return
	}
	e := newSSE(w)
	for i, p := range pieces {
		if i > 0 && pause(r, s.cfg.Delay) != nil {
			return
		}
		e.data(chunk(p, i == len(pieces)-1))
	}
}
