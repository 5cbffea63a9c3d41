// Command fakemodel runs the scripted model server of internal/fakemodel on
// loopback, for trying a real agent CLI by hand against canned replies:
//
//	fakemodel -reply 'first reply' -reply 'second reply' -log requests.jsonl
//	fakemodel -script replies.json   # a JSON array of reply texts
//	fakemodel -replies calls.json    # a JSON array of fakemodel.Reply: text, tool calls
//
// It prints the base URL (for ANTHROPIC_BASE_URL, or with /v1 appended for
// a Codex model provider) and serves until interrupted.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

type replies []string

func (r *replies) String() string     { return fmt.Sprint(*r) }
func (r *replies) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	var cfg fakemodel.Config
	var rs replies
	script := flag.String("script", "", "JSON file holding an array of reply texts, one per conversation request")
	calls := flag.String("replies", "", `JSON file holding an array of replies that may call tools ({"text", "tool": {"shell", "description"}, "when"}; see fakemodel.Reply), used instead of the texts`)
	flag.Var(&rs, "reply", "a reply text (repeatable; after those of -script)")
	flag.StringVar(&cfg.Aside, "aside", "", `reply to requests outside the conversation (default "OK")`)
	flag.IntVar(&cfg.Chunk, "chunk", 16, "most bytes of text in one streamed delta")
	flag.DurationVar(&cfg.Delay, "delay", 20*time.Millisecond, "pause between streamed deltas")
	flag.StringVar(&cfg.LogPath, "log", "", "append each request to this file as a JSON line")
	flag.Parse()
	if *script != "" {
		b, err := os.ReadFile(*script)
		if err == nil {
			err = json.Unmarshal(b, &cfg.Script)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemodel:", err)
			os.Exit(2)
		}
	}
	cfg.Script = append(cfg.Script, rs...)
	if *calls != "" {
		b, err := os.ReadFile(*calls)
		if err == nil {
			err = json.Unmarshal(b, &cfg.Replies)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemodel:", err)
			os.Exit(2)
		}
	}
	s, err := fakemodel.Start(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
	fmt.Println(s.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
}
