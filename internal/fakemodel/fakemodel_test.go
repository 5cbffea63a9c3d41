package fakemodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// event is one server-sent event.
type event struct {
	Name string
	Data map[string]any
}

// readSSE reads every event of a streamed reply.
func readSSE(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	var name string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data of %s is not JSON: %v: %q", name, err, line)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			out = append(out, event{name, d})
		case line == "":
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const (
	streamed   = `{"model":"claude-x","stream":true,"max_tokens":100,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`
	unstreamed = `{"model":"claude-x","max_tokens":1,"messages":[{"role":"user","content":"quota"}]}`
	toolless   = `{"model":"claude-haiku","stream":true,"max_tokens":100,"messages":[{"role":"user","content":"title?"}]}`
)

// streamedText reads a streamed Messages reply, checks its event order and
// returns the text of its deltas.
func streamedText(t *testing.T, resp *http.Response) string {
	t.Helper()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readSSE(t, resp.Body)
	var names []string
	var text strings.Builder
	for _, e := range evs {
		if n := len(names); n == 0 || names[n-1] != e.Name {
			names = append(names, e.Name)
		}
		if e.Name == "content_block_delta" {
			d := e.Data["delta"].(map[string]any)
			if d["type"] != "text_delta" {
				t.Errorf("delta type %v", d["type"])
			}
			text.WriteString(d["text"].(string))
		}
	}
	want := []string{"message_start", "content_block_start", "ping", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("events %v, want %v", names, want)
	}
	msg := evs[0].Data["message"].(map[string]any)
	if !strings.HasPrefix(msg["model"].(string), "claude-") || msg["role"] != "assistant" {
		t.Errorf("message_start message %v", msg)
	}
	return text.String()
}

func TestMessagesScript(t *testing.T) {
	s := New(Config{Script: []string{"first reply, long enough for several deltas", "second ●"}, Aside: "aside", Chunk: 7})
	ts := httptest.NewServer(s)
	defer ts.Close()

	// The start-up call, not streamed: the aside, no script entry used.
	resp := post(t, ts.URL+"/v1/messages", unstreamed)
	var m struct {
		Type, Role, Model, StopReason string
		Content                       []struct{ Type, Text string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.Role != "assistant" || m.Model != "claude-x" || len(m.Content) != 1 || m.Content[0].Text != "aside" {
		t.Errorf("unstreamed reply %+v", m)
	}
	if got := streamedText(t, post(t, ts.URL+"/v1/messages", toolless)); got != "aside" {
		t.Errorf("tool-less streamed reply %q, want the aside", got)
	}
	for i, want := range []string{"first reply, long enough for several deltas", "second ●", "second ●"} {
		if got := streamedText(t, post(t, ts.URL+"/v1/messages?beta=true", streamed)); got != want {
			t.Errorf("conversation reply %d = %q, want %q", i, got, want)
		}
	}
	if s.Used() != 3 {
		t.Errorf("Used() = %d, want 3", s.Used())
	}
	reqs := s.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests recorded, want 5", len(reqs))
	}
	if r := reqs[2]; r.API != "messages" || r.Query != "beta=true" || !r.Stream || r.Script != 0 || r.Reply != "first reply, long enough for several deltas" {
		t.Errorf("request 2 recorded as %+v", r)
	}
	if reqs[0].Script != -1 || reqs[0].Stream {
		t.Errorf("request 0 recorded as %+v", reqs[0])
	}
	if !json.Valid(reqs[4].Body) || !strings.Contains(string(reqs[4].Body), `"Bash"`) {
		t.Errorf("request body not kept: %s", reqs[4].Body)
	}
}

func TestEmptyScript(t *testing.T) {
	ts := httptest.NewServer(New(Config{}))
	defer ts.Close()
	if got := streamedText(t, post(t, ts.URL+"/v1/messages", streamed)); got != "OK" {
		t.Errorf("reply %q, want OK", got)
	}
}

func TestOtherEndpoints(t *testing.T) {
	ts := httptest.NewServer(New(Config{}))
	defer ts.Close()
	resp := post(t, ts.URL+"/v1/messages/count_tokens", unstreamed)
	var c struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.InputTokens <= 0 {
		t.Errorf("count_tokens: %v, %+v", err, c)
	}
	if resp := post(t, ts.URL+"/v2/nothing", "{}"); resp.StatusCode != 404 {
		t.Errorf("unknown endpoint: status %d", resp.StatusCode)
	}
	r, err := http.Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != 200 {
		t.Errorf("models: status %d", r.StatusCode)
	}
}

func TestResponsesStream(t *testing.T) {
	s := New(Config{Script: []string{"[ROUTE] to: a type: status task: T-1 body: hi [/ROUTE]"}, Chunk: 5})
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp := post(t, ts.URL+"/v1/responses", `{"model":"gpt-x","stream":true,"tools":[{"type":"function","name":"shell"}],"input":[]}`)
	evs := readSSE(t, resp.Body)
	var names []string
	var text strings.Builder
	for i, e := range evs {
		if n := len(names); n == 0 || names[n-1] != e.Name {
			names = append(names, e.Name)
		}
		if e.Data["sequence_number"] != float64(i) {
			t.Errorf("event %d has sequence_number %v", i, e.Data["sequence_number"])
		}
		if e.Name == "response.output_text.delta" {
			text.WriteString(e.Data["delta"].(string))
		}
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("events %v, want %v", names, want)
	}
	if text.String() != "[ROUTE] to: a type: status task: T-1 body: hi [/ROUTE]" {
		t.Errorf("text %q", text.String())
	}
	last := evs[len(evs)-1].Data["response"].(map[string]any)
	if last["status"] != "completed" || last["id"] != evs[0].Data["response"].(map[string]any)["id"] {
		t.Errorf("response.completed carries %v", last)
	}
	out := last["output"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)
	if out["text"] != text.String() {
		t.Errorf("completed output text %v", out["text"])
	}
}

func TestPieces(t *testing.T) {
	for _, text := range []string{"", "a", "hello world", "●●●● ❯ x", strings.Repeat("é", 20)} {
		for _, n := range []int{0, 1, 2, 3, 4, 16} {
			ps := Pieces(text, n)
			if strings.Join(ps, "") != text {
				t.Errorf("Pieces(%q, %d) = %q does not rejoin", text, n, ps)
			}
			for _, p := range ps {
				if !utf8.ValidString(p) || p == "" {
					t.Errorf("Pieces(%q, %d): bad piece %q", text, n, p)
				}
				if lim := max(n, 4); n > 0 && len(p) > lim {
					t.Errorf("Pieces(%q, %d): piece %q too long", text, n, p)
				}
			}
		}
	}
}

// TestConcurrent runs requests in parallel (for -race): each script entry
// is used once.
func TestConcurrent(t *testing.T) {
	script := []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"}
	s := New(Config{Script: script})
	ts := httptest.NewServer(s)
	defer ts.Close()
	var wg sync.WaitGroup
	got := make([]string, len(script))
	for i := range script {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(ts.URL+"/v1/messages", "application/json", strings.NewReader(streamed))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, `"text_delta"`) {
					var d struct{ Delta struct{ Text string } }
					json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &d)
					got[i] += d.Delta.Text
				}
			}
			_ = s.Requests()
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, g := range got {
		seen[g] = true
	}
	for _, r := range script {
		if !seen[r] {
			t.Errorf("reply %q never given; got %q", r, got)
		}
	}
}

func TestStartLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests.jsonl")
	s, err := Start(Config{Script: []string{"hello"}, LogPath: log})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q not on loopback", s.URL())
	}
	if got := streamedText(t, post(t, s.URL()+"/v1/messages", streamed)); got != "hello" {
		t.Errorf("reply %q", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("log line: %v: %s", err, b)
	}
	if r.Path != "/v1/messages" || r.Reply != "hello" || !strings.Contains(string(r.Body), `"stream":true`) {
		t.Errorf("logged %+v", r)
	}
}

func TestGemini(t *testing.T) {
	s := New(Config{Script: []string{"a Gemini reply, in pieces ✦"}, Chunk: 6})
	ts := httptest.NewServer(s)
	defer ts.Close()
	base := ts.URL + "/v1beta/models/gemini-x"

	// A side request asking for JSON gets "{}" and uses no script entry.
	resp := post(t, base+":generateContent", `{"contents":[],"generationConfig":{"responseMimeType":"application/json"}}`)
	var one struct {
		Candidates []struct {
			Content struct {
				Role  string
				Parts []struct{ Text string }
			}
			FinishReason string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&one); err != nil {
		t.Fatal(err)
	}
	if len(one.Candidates) != 1 || one.Candidates[0].Content.Parts[0].Text != "{}" || one.Candidates[0].FinishReason != "STOP" {
		t.Errorf("JSON side request answered %+v", one)
	}

	resp = post(t, base+":streamGenerateContent?alt=sse", `{"contents":[],"tools":[{"functionDeclarations":[]}]}`)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	frames := strings.Split(strings.TrimSpace(string(b)), "\r\n\r\n")
	for i, f := range frames {
		var c struct {
			Candidates []struct {
				Content      struct{ Parts []struct{ Text string } }
				FinishReason string
			}
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(f, "data: ")), &c); err != nil {
			t.Fatalf("frame %d %q: %v", i, f, err)
		}
		text.WriteString(c.Candidates[0].Content.Parts[0].Text)
		if last := i == len(frames)-1; (c.Candidates[0].FinishReason == "STOP") != last {
			t.Errorf("frame %d: finishReason %q", i, c.Candidates[0].FinishReason)
		}
	}
	if text.String() != "a Gemini reply, in pieces ✦" || len(frames) < 3 {
		t.Errorf("streamed %d frames of %q", len(frames), text.String())
	}

	resp = post(t, base+":countTokens", `{"contents":[]}`)
	var c struct{ TotalTokens int }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.TotalTokens <= 0 {
		t.Errorf("countTokens: %v %+v", err, c)
	}
	if got := s.Used(); got != 1 {
		t.Errorf("Used() = %d, want 1", got)
	}
	if r := s.Requests(); len(r) != 3 || r[1].API != "gemini" || !r[1].Stream || r[1].Script != 0 {
		t.Errorf("requests %+v", r)
	}
}

// A script entry with When waits for the conversation request that holds
// its text; the conversation requests before it get the aside and use no
// entry.
func TestReplyWhen(t *testing.T) {
	s := New(Config{Aside: "aside", Replies: []Reply{
		{Text: "first"},
		{Text: "to the question", When: `the <question> "here"`},
		{Text: "to the result", When: "go version go1"},
		{Text: "last"},
	}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	ask := func(user string) string {
		b, _ := json.Marshal(map[string]any{"model": "claude-x", "stream": true, "tools": []any{map[string]any{"name": "Bash"}},
			"messages": []any{map[string]any{"role": "user", "content": user}}})
		return streamedText(t, post(t, ts.URL+"/v1/messages", string(b)))
	}
	for i, c := range []struct{ user, want string }{
		{"hello", "first"},
		{"an acknowledgement", "aside"},
		{`it is the <question> "here"`, "to the question"},
		{"another acknowledgement", "aside"},
		{"go version go1.26.8 linux/amd64", "to the result"},
		{"anything", "last"},
		{"anything more", "last"},
	} {
		if got := ask(c.user); got != c.want {
			t.Errorf("reply %d to %q = %q, want %q", i, c.user, got, c.want)
		}
	}
	if s.Used() != 5 {
		t.Errorf("Used() = %d, want 5", s.Used())
	}
	var held, scripts []int
	for i, r := range s.Requests() {
		if r.Held {
			held = append(held, i)
		}
		scripts = append(scripts, r.Script)
	}
	if !reflect.DeepEqual(held, []int{1, 3}) || !reflect.DeepEqual(scripts, []int{0, -1, 1, -1, 2, 3, 4}) {
		t.Errorf("held %v, script entries %v", held, scripts)
	}

	// A held request still brings tool results back.
	s = New(Config{Replies: []Reply{{Tool: &ToolCall{Shell: "go version"}}, {Text: "next", When: "never said"}}})
	ts2 := httptest.NewServer(s)
	defer ts2.Close()
	post(t, ts2.URL+"/v1/messages", streamed).Body.Close()
	call := s.Calls()[0]
	b, _ := json.Marshal(map[string]any{"model": "claude-x", "stream": true, "tools": []any{map[string]any{"name": "Bash"}},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": call.ID, "content": "bash: go: command not found"}}}}})
	post(t, ts2.URL+"/v1/messages", string(b)).Body.Close()
	if tr, ok := s.Result(call.ID); !ok || tr.Output != "bash: go: command not found" || !s.Requests()[1].Held {
		t.Errorf("the held request's result: %+v %v; requests %+v", tr, ok, s.Requests())
	}
}

func TestHolds(t *testing.T) {
	for _, c := range []struct {
		body, text string
		want       bool
	}{
		{`{"a":"x y z"}`, "y z", true},
		{`{"a":"say \"hi\"\nthere"}`, "say \"hi\"\nthere", true},
		{`{"a":"a \u003cb\u003e \u0026 c"}`, "a <b> & c", true},
		{`{"a":"a <b> & c"}`, "a <b> & c", true},
		{`{"a":"x y z"}`, "y q", false},
	} {
		if got := holds([]byte(c.body), c.text); got != c.want {
			t.Errorf("holds(%s, %q) = %v", c.body, c.text, got)
		}
	}
}
