// Package usage reads what an agent CLI spent from the files it keeps:
// Claude Code's transcript (JSON lines; its path comes with every hook
// event), Codex's session rollout (JSON lines, whose token_count events
// carry the session's running totals), Gemini CLI's chat and GitHub Copilot
// CLI's session events (JSON lines, a usage record per model request).
// Each is read as it grows, from where the last read stopped. OpenCode
// keeps its conversations in an SQLite database instead (OpenCodeSessions).
package usage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Tokens is what a conversation used, as the model server reported it.
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	// CostUSD is the CLI's own estimate, when it writes one (Claude Code's
	// cost-state lines); 0 when unknown.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// All is every token of t: input (with the cache's) and output.
func (t Tokens) All() int64 { return t.Input + t.CacheRead + t.CacheWrite + t.Output }

// Short writes a token count short: 950, 12.3k, 4.1M.
func Short(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// Dollars writes a cost as the agent list and the tables show it: $0.03.
func Dollars(usd float64) string { return fmt.Sprintf("$%.2f", usd) }

// Add returns t plus o.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{Input: t.Input + o.Input, Output: t.Output + o.Output, CacheRead: t.CacheRead + o.CacheRead,
		CacheWrite: t.CacheWrite + o.CacheWrite, CostUSD: t.CostUSD + o.CostUSD}
}

// Sub returns t minus o: what was used since o was read.
func (t Tokens) Sub(o Tokens) Tokens {
	return Tokens{Input: t.Input - o.Input, Output: t.Output - o.Output, CacheRead: t.CacheRead - o.CacheRead,
		CacheWrite: t.CacheWrite - o.CacheWrite, CostUSD: t.CostUSD - o.CostUSD}
}

// Past returns t minus o with no field below zero: what a conversation
// used beyond o, what an earlier run counted of it.
func (t Tokens) Past(o Tokens) Tokens {
	d := t.Sub(o)
	d.Input, d.Output, d.CacheRead, d.CacheWrite = max(d.Input, 0), max(d.Output, 0), max(d.CacheRead, 0), max(d.CacheWrite, 0)
	d.CostUSD = max(d.CostUSD, 0)
	return d
}

// maxLine bounds one transcript line; a longer one (a huge tool result) is
// skipped whole.
const maxLine = 8 << 20

// Transcript is one Claude Code transcript read so far. Claude Code writes
// one line per content block of a reply, each with the reply's usage so
// far: the last usage seen for each message id counts, once.
type Transcript struct {
	// Codex reads a Codex rollout instead of a Claude Code transcript.
	Codex bool
	// Gemini reads a Gemini CLI chat (~/.gemini/tmp/*/chats/session-*.jsonl)
	// instead: a line per message, written again as it grows; the last
	// tokens seen for each message id count, once.
	Gemini bool
	// Copilot reads GitHub Copilot CLI's session events
	// (~/.copilot/session-state/<id>/events.jsonl) instead: a
	// session.usage_record line per model request, whose input counts the
	// cache's reads and writes too; each record counts once.
	Copilot  bool
	codex    Tokens // the last running total a Codex rollout gave
	offset   int64
	messages map[string]Tokens
	partial  []byte // a last line not yet ended
	cost     float64
}

// Offset is how far the file has been read.
func (t *Transcript) Offset() int64 { return t.offset }

// Read takes the lines r holds from t.Offset() on (the caller seeks there).
func (t *Transcript) Read(r io.Reader) error {
	if t.messages == nil {
		t.messages = map[string]Tokens{}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		chunk, err := br.ReadSlice('\n')
		t.offset += int64(len(chunk))
		if len(t.partial)+len(chunk) <= maxLine {
			t.partial = append(t.partial, chunk...)
		} else {
			t.partial = append(t.partial[:0], 0) // too long: dropped at its end
		}
		switch err {
		case nil:
			t.line(t.partial)
			t.partial = t.partial[:0]
		case bufio.ErrBufferFull:
		case io.EOF:
			return nil
		default:
			return err
		}
	}
}

// transcriptLine is the part of a line Read looks at.
type transcriptLine struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string `json:"id"`
		Usage *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
	TotalCostUSD *float64 `json:"totalCostUSD"`
	// ID and Tokens are a Gemini CLI chat message's.
	ID     string `json:"id"`
	Tokens *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
	// Data is a Copilot CLI session event's.
	Data *struct {
		Usage *struct {
			Input      int64 `json:"inputTokens"`
			Output     int64 `json:"outputTokens"`
			CacheRead  int64 `json:"cacheReadTokens"`
			CacheWrite int64 `json:"cacheWriteTokens"`
		} `json:"usage"`
	} `json:"data"`
	// Payload is a Codex rollout event's.
	Payload *struct {
		Type string `json:"type"`
		Info *struct {
			Total *struct {
				Input  int64 `json:"input_tokens"`
				Cached int64 `json:"cached_input_tokens"`
				Output int64 `json:"output_tokens"`
			} `json:"total_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

func (t *Transcript) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var l transcriptLine
	if json.Unmarshal(b, &l) != nil {
		return
	}
	if t.Gemini {
		// {"id":"…","type":"gemini","tokens":{"input":10,"output":30,"cached":0,"thoughts":0,"tool":0,"total":40}}
		if u := l.Tokens; l.Type == "gemini" && l.ID != "" && u != nil && u.Input >= 0 && u.Cached >= 0 && u.Cached <= u.Input &&
			u.Output >= 0 && u.Thoughts >= 0 && u.Tool >= 0 {
			t.messages[l.ID] = Tokens{Input: u.Input - u.Cached + u.Tool, CacheRead: u.Cached, Output: u.Output + u.Thoughts}
		}
		return
	}
	if t.Copilot {
		// {"type":"session.usage_record","data":{"usage":{"inputTokens":540,"outputTokens":9,"cacheReadTokens":500,"cacheWriteTokens":30,…}},"id":"…"}
		if d := l.Data; l.Type == "session.usage_record" && l.ID != "" && d != nil && d.Usage != nil {
			u := d.Usage
			if u.Input >= 0 && u.Output >= 0 && u.CacheRead >= 0 && u.CacheWrite >= 0 {
				in := u.Input
				if u.CacheRead+u.CacheWrite <= in {
					in -= u.CacheRead + u.CacheWrite
				} // else a provider that counts them apart
				t.messages[l.ID] = Tokens{Input: in, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output}
			}
		}
		return
	}
	if t.Codex {
		// {"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{…}}}}
		if p := l.Payload; l.Type == "event_msg" && p != nil && p.Type == "token_count" && p.Info != nil && p.Info.Total != nil {
			u := p.Info.Total
			if u.Input >= 0 && u.Cached >= 0 && u.Cached <= u.Input && u.Output >= 0 {
				t.codex = Tokens{Input: u.Input - u.Cached, CacheRead: u.Cached, Output: u.Output}
			}
		}
		return
	}
	switch {
	case l.Type == "assistant" && l.Message != nil && l.Message.ID != "" && l.Message.Usage != nil:
		u := l.Message.Usage
		if u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 {
			return
		}
		t.messages[l.Message.ID] = Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
	case l.Type == "cost-state" && l.TotalCostUSD != nil && *l.TotalCostUSD >= 0:
		t.cost = *l.TotalCostUSD
	}
}

// Total is what the conversation used so far.
func (t *Transcript) Total() Tokens {
	if t.Codex {
		return t.codex
	}
	var sum Tokens
	for _, m := range t.messages {
		sum = sum.Add(m)
	}
	sum.CostUSD = t.cost
	return sum
}
