package usage

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A transcript the real Claude Code 2.1.328 wrote against the scripted
// model server (one reply: 10 tokens in, 2 out).
func TestClaudeCodeTranscript(t *testing.T) {
	b, err := os.ReadFile("testdata/claude-code-2.1.328.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var tr Transcript
	if err := tr.Read(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	got := tr.Total()
	if got.Input != 10 || got.Output != 2 || got.CacheRead != 0 || got.CacheWrite != 0 || got.CostUSD <= 0 {
		t.Errorf("total %+v", got)
	}
	if tr.Offset() != int64(len(b)) {
		t.Errorf("offset %d of %d", tr.Offset(), len(b))
	}
}

// Read as the file grows: a line cut in two reads counts once it ends;
// every content block of one reply carries its usage so far, and the last
// one counts, once.
func TestTranscriptReadAsItGrows(t *testing.T) {
	block := func(id string, out int) string {
		return `{"type":"assistant","message":{"id":"` + id + `","usage":{"input_tokens":7,"output_tokens":` + strconv.Itoa(out) + `,"cache_read_input_tokens":3,"cache_creation_input_tokens":1}}}` + "\n"
	}
	all := block("m1", 1) + block("m1", 5) + "not json\n" + block("m2", 2)
	var tr Transcript
	cut := len(block("m1", 1)) + 10
	if err := tr.Read(strings.NewReader(all[:cut])); err != nil {
		t.Fatal(err)
	}
	if got := tr.Total(); got.Output != 1 {
		t.Errorf("after the first read: %+v", got)
	}
	if err := tr.Read(strings.NewReader(all[cut:])); err != nil {
		t.Fatal(err)
	}
	if got := tr.Total(); got != (Tokens{Input: 14, Output: 7, CacheRead: 6, CacheWrite: 2}) {
		t.Errorf("total %+v", got)
	}
}

// Whatever a transcript holds, Read neither fails on it nor counts less
// than nothing.
func FuzzClaudeTranscript(f *testing.F) {
	if b, err := os.ReadFile("testdata/claude-code-2.1.328.jsonl"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"type":"assistant","message":{"id":"x","usage":{"input_tokens":-5}}}` + "\n"))
	if b, err := os.ReadFile("testdata/gemini-0.61.0-chat.jsonl"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Each format (Claude Code, Codex, Gemini CLI) reads anything;
		// the other two only small inputs, so that the large transcript
		// seed's mutations are not read three times.
		trs := []*Transcript{{}}
		if len(b) <= 16<<10 {
			trs = append(trs, &Transcript{Codex: true}, &Transcript{Gemini: true})
		}
		for _, tr := range trs {
			if err := tr.Read(bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
			if got := tr.Total(); got.Input < 0 || got.Output < 0 || got.CacheRead < 0 || got.CacheWrite < 0 || got.CostUSD < 0 {
				t.Fatalf("negative total %+v", got)
			}
			if tr.Offset() != int64(len(b)) {
				t.Fatalf("offset %d of %d", tr.Offset(), len(b))
			}
		}
	})
}

// A Codex rollout's token_count events carry running totals: the last
// one counts, cached input apart; other lines and bad totals change nothing.
func TestCodexRollout(t *testing.T) {
	text := `{"type":"session_meta","payload":{"id":"x","cwd":"/p"}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":7}}}}
{"type":"event_msg","payload":{"type":"token_count","info":null}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":250,"cached_input_tokens":90,"output_tokens":30}}}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"cached_input_tokens":9,"output_tokens":1}}}}
{"type":"assistant","message":{"id":"m","usage":{"input_tokens":999,"output_tokens":999}}}
`
	tr := &Transcript{Codex: true}
	if err := tr.Read(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Total(), (Tokens{Input: 160, CacheRead: 90, Output: 30}); got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
}

// A Gemini CLI 0.61.0 chat, as it wrote it against the scripted model
// server (the primer elided): a reply's line is written again when its
// tool call is added, and counts once.
func TestGeminiChat(t *testing.T) {
	f, err := os.Open("testdata/gemini-0.61.0-chat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := &Transcript{Gemini: true}
	if err := tr.Read(f); err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Total(), (Tokens{Input: 20, Output: 32}); got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
	tr = &Transcript{Gemini: true}
	text := `{"id":"a","type":"gemini","tokens":{"input":100,"output":5,"cached":40,"thoughts":7,"tool":3,"total":115}}
{"id":"b","type":"gemini","tokens":{"input":5,"output":1,"cached":9}}
{"id":"c","type":"user","tokens":{"input":50,"output":50}}
`
	if err := tr.Read(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Total(), (Tokens{Input: 63, CacheRead: 40, Output: 12}); got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
}
