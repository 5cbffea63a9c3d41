package usage

import (
	"fmt"
	"time"
)

// OpenCodeSession is one conversation in OpenCode's database
// (~/.local/share/opencode/opencode.db, its session table), with what it
// spent as OpenCode totals it after each reply.
type OpenCodeSession struct {
	// ID is the conversation's id (ses_…), what `opencode --session` takes.
	ID string
	// Dir is the folder it runs in.
	Dir string
	// Parent is the conversation a subagent's belongs to; "" for a top one.
	Parent string
	// Updated is when OpenCode last wrote it.
	Updated time.Time
	// Archived: OpenCode archived it.
	Archived bool
	// Tokens is what it spent: input without the cache's, the cache's
	// reads and writes, output with reasoning.
	Tokens Tokens
}

// OpenCodeSessions reads every conversation in OpenCode's database at path
// (with its write-ahead log, as OpenCode keeps it open), read-only.
func OpenCodeSessions(path string) ([]OpenCodeSession, error) {
	db, err := sqliteOpen(path)
	if err != nil {
		return nil, err
	}
	defer db.close()
	return openCodeSessions(db)
}

func openCodeSessions(db *sqliteDB) ([]OpenCodeSession, error) {
	root, cols, err := db.sqliteTable("session")
	if err != nil {
		return nil, err
	}
	at := map[string]int{}
	for i, c := range cols {
		at[c] = i
	}
	for _, c := range []string{"id", "directory"} {
		if _, ok := at[c]; !ok {
			return nil, fmt.Errorf("%w: OpenCode's session table has no column %s", ErrSQLite, c)
		}
	}
	var out []OpenCodeSession
	err = db.rows(root, func(v []any) bool {
		str := func(c string) string {
			if i, ok := at[c]; ok && i < len(v) {
				s, _ := v[i].(string)
				return s
			}
			return ""
		}
		num := func(c string) int64 {
			if i, ok := at[c]; ok && i < len(v) {
				switch x := v[i].(type) {
				case int64:
					return max(x, 0)
				case float64:
					if x > 0 && x < 1<<62 {
						return int64(x)
					}
				}
			}
			return 0
		}
		s := OpenCodeSession{ID: str("id"), Dir: str("directory"), Parent: str("parent_id"),
			Updated: time.UnixMilli(num("time_updated")), Archived: num("time_archived") > 0,
			Tokens: Tokens{Input: num("tokens_input"), Output: num("tokens_output") + num("tokens_reasoning"),
				CacheRead: num("tokens_cache_read"), CacheWrite: num("tokens_cache_write")}}
		if i, ok := at["cost"]; ok && i < len(v) {
			switch c := v[i].(type) {
			case float64:
				if c > 0 && c < 1e9 {
					s.Tokens.CostUSD = c
				}
			case int64: // a whole number may be stored as an integer
				if c > 0 && c < 1e9 {
					s.Tokens.CostUSD = float64(c)
				}
			}
		}
		if s.ID != "" {
			out = append(out, s)
		}
		return len(out) < 1<<20
	})
	return out, err
}

// OpenCodeTotal is what the conversation id spent, with the conversations
// of the subagents it started (and theirs).
func OpenCodeTotal(sessions []OpenCodeSession, id string) Tokens {
	children := map[string][]int{}
	for i, s := range sessions {
		if s.Parent != "" {
			children[s.Parent] = append(children[s.Parent], i)
		}
	}
	var sum Tokens
	seen := map[string]bool{}
	todo := []string{id}
	for len(todo) > 0 {
		cur := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		for i, s := range sessions {
			if s.ID == cur {
				sum = sum.Add(sessions[i].Tokens)
				break
			}
		}
		for _, i := range children[cur] {
			todo = append(todo, sessions[i].ID)
		}
	}
	return sum
}
