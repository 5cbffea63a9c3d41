package usage

import (
	"bytes"
	"errors"
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
		// Each format (Claude Code, Codex, Gemini CLI, Copilot CLI) reads
		// anything; the others only small inputs, so that the large transcript
		// seed's mutations are not read three times.
		trs := []*Transcript{{}}
		if len(b) <= 16<<10 {
			trs = append(trs, &Transcript{Codex: true}, &Transcript{Gemini: true}, &Transcript{Copilot: true})
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

// GitHub Copilot CLI 1.0.102's session events, as it wrote them against the
// scripted model server (long texts elided): a usage record per model
// request, 10 tokens in each, 9+17+4 out before the process was killed
// and 2 after `copilot --resume` appended to the same file.
func TestCopilotEvents(t *testing.T) {
	for _, c := range []struct {
		file string
		want Tokens
	}{
		{"testdata/copilot-1.0.102-events.jsonl", Tokens{Input: 40, Output: 32}},
		// The model server said 10 in, 500 read from the cache, 30
		// written to it; Copilot records 540 in, the cache's included.
		{"testdata/copilot-1.0.102-cached-events.jsonl", Tokens{Input: 10, CacheRead: 500, CacheWrite: 30, Output: 9}},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		tr := &Transcript{Copilot: true}
		if err := tr.Read(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		if got := tr.Total(); got != c.want {
			t.Errorf("%s: Total = %+v, want %+v", c.file, got, c.want)
		}
		if tr.Offset() != int64(len(b)) {
			t.Errorf("%s: offset %d of %d", c.file, tr.Offset(), len(b))
		}
	}
	tr := &Transcript{Copilot: true}
	text := `{"type":"session.usage_record","id":"a","data":{"usage":{"inputTokens":100,"outputTokens":5,"cacheReadTokens":40,"cacheWriteTokens":10}}}
{"type":"session.usage_record","id":"a","data":{"usage":{"inputTokens":100,"outputTokens":5,"cacheReadTokens":40,"cacheWriteTokens":10}}}
{"type":"session.usage_record","id":"b","data":{"usage":{"inputTokens":5,"outputTokens":1,"cacheReadTokens":9}}}
{"type":"session.usage_record","id":"c","data":{"usage":{"inputTokens":-5,"outputTokens":1}}}
{"type":"session.usage_record","data":{"usage":{"inputTokens":7,"outputTokens":7}}}
{"type":"assistant.message","id":"d","data":{"usage":{"inputTokens":50,"outputTokens":50}}}
`
	if err := tr.Read(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	// a once, b's cache apart from its input (more than it), c and the
	// record without an id not at all.
	if got, want := tr.Total(), (Tokens{Input: 55, CacheRead: 49, CacheWrite: 10, Output: 6}); got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
}

// OpenCode 1.18.33's database, as it left it after runs against the
// scripted model server (every table but session dropped): four
// conversations in one folder, two that the model answered, one of them
// with 500 tokens read from the cache and 30 written.
func TestOpenCodeSessions(t *testing.T) {
	got, err := OpenCodeSessions("testdata/opencode-1.18.33.db")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d sessions: %+v", len(got), got)
	}
	byID := map[string]OpenCodeSession{}
	for _, s := range got {
		if s.Dir != "/tmp/x16/ocproj" || s.Parent != "" || s.Archived || s.Updated.Year() != 2026 {
			t.Errorf("session %+v", s)
		}
		byID[s.ID] = s
	}
	if s := byID["ses_ded9914c1ffeYrjjocCSJd6tLy"]; s.Tokens != (Tokens{Input: 10, Output: 9}) {
		t.Errorf("the first answered session: %+v", s)
	}
	if s := byID["ses_ded98164cffeQk2Gb7lrjhS8DA"]; s.Tokens != (Tokens{Input: 10, Output: 11, CacheRead: 500, CacheWrite: 30}) {
		t.Errorf("the cached session: %+v", s)
	}
}

// A database whose newest pages are still in its write-ahead log (two
// commits, each adding a reply's tokens): the log's committed pages are
// read over the file's; a log cut in its last frame, or with a damaged
// frame, counts up to the commit before.
func TestOpenCodeSessionsWAL(t *testing.T) {
	const id = "ses_ded98164cffeQk2Gb7lrjhS8DA"
	db, err := os.ReadFile("testdata/opencode-1.18.33-wal.db")
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile("testdata/opencode-1.18.33-wal.db-wal")
	if err != nil {
		t.Fatal(err)
	}
	frame := (len(wal) - 32) / 2
	damaged := bytes.Clone(wal)
	damaged[len(wal)-100] ^= 0xff
	badMagic := bytes.Clone(wal)
	badMagic[0] = 0
	for _, c := range []struct {
		name string
		wal  []byte
		in   int64
		out  int64
	}{
		{"whole", wal, 30, 22},
		{"no log", nil, 10, 11},
		{"cut", wal[:len(wal)-10], 20, 15},
		{"first frame only", wal[:32+frame], 20, 15},
		{"damaged", damaged, 20, 15},
		{"not a log", badMagic, 10, 11},
	} {
		dir := t.TempDir()
		path := dir + "/opencode.db"
		if err := os.WriteFile(path, db, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.wal != nil {
			if err := os.WriteFile(path+"-wal", c.wal, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ss, err := OpenCodeSessions(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		found := false
		for _, s := range ss {
			if s.ID == id {
				found = true
				if s.Tokens.Input != c.in || s.Tokens.Output != c.out || s.Tokens.CacheRead != 500 {
					t.Errorf("%s: %+v, want %d in, %d out", c.name, s.Tokens, c.in, c.out)
				}
			}
		}
		if !found || len(ss) != 4 {
			t.Errorf("%s: %d sessions, %s not among them", c.name, len(ss), id)
		}
	}
}

// Whatever the database file holds, OpenCodeSessions returns an error or
// sessions, never panics, and counts nothing below zero.
func FuzzOpenCodeSessions(f *testing.F) {
	if b, err := os.ReadFile("testdata/opencode-1.18.33.db"); err == nil {
		f.Add(b)
	}
	db, err1 := os.ReadFile("testdata/opencode-1.18.33-wal.db")
	wal, err2 := os.ReadFile("testdata/opencode-1.18.33-wal.db-wal")
	if err1 == nil && err2 == nil && len(db) >= 4096 {
		f.Add(append(db[:4096:4096], wal...)) // the schema's page, then a log holding the session table's
	}
	f.Add([]byte("SQLite format 3\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// The first 32 bytes after a database's first page, when there
		// are any, stand for a log's header (and its frames follow).
		var wal *bytes.Reader
		var walSize int64
		if len(b) > 4096+32 {
			wal, walSize = bytes.NewReader(b[4096:]), int64(len(b)-4096)
		}
		var ss []OpenCodeSession
		db, err := sqliteFrom(bytes.NewReader(b), nil, 0)
		if wal != nil && err == nil {
			db, err = sqliteFrom(bytes.NewReader(b), wal, walSize)
		}
		if err == nil {
			ss, err = openCodeSessions(db)
		}
		if err != nil && !errors.Is(err, ErrSQLite) {
			t.Fatalf("an error that is not ErrSQLite: %v", err)
		}
		for _, s := range ss {
			if tk := s.Tokens; tk.Input < 0 || tk.Output < 0 || tk.CacheRead < 0 || tk.CacheWrite < 0 || tk.CostUSD < 0 {
				t.Fatalf("negative tokens %+v", s)
			}
		}
	})
}

// The column names of a CREATE TABLE, table constraints left out.
func TestSQLiteColumns(t *testing.T) {
	got := sqliteColumns("CREATE TABLE `s` (\n `id` text PRIMARY KEY,\n \"cost\" real DEFAULT 0 NOT NULL, [n] numeric(10, 2),\n x,\n CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `p`(`id`) ON DELETE CASCADE, PRIMARY KEY (id, x))")
	if want := []string{"id", "cost", "n", "x"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("columns %q, want %q", got, want)
	}
}
