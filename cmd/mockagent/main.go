// Command mockagent is a scripted stand-in for an agent CLI, for the demo
// and the tests: it prints what its script says ([ROUTE] envelopes, <gap>
// blocks, text in pieces), waits for input lines matching patterns, records
// every byte it receives, and can behave like a full-screen CLI (raw mode,
// bracketed paste).
//
// Usage (flags before SCRIPT_FILE):
//
//	mockagent [--record FILE] [--raw] [--bracketed-paste] [--input-box [--newline-after-paste DUR]] [--name NAME] [--traffic-log FILE [--traffic-rate R] [--traffic-peers A,B] [--traffic-roles R1,R2] [--traffic-seed N] [--traffic-stop FILE]] SCRIPT_FILE
//	mockagent [flags] -e 'script text'
//
// --record appends every byte read from the terminal to FILE, raw, as
// received. --raw turns off echo and line editing (output still turns "\n"
// into CRLF). --bracketed-paste prints ESC[?2004h at start and ESC[?2004l at
// exit, and implies --raw. The default is cooked mode: the terminal echoes
// what is typed. --input-box (implies --bracketed-paste) draws what is typed
// and not yet submitted on a "> " row with the cursor after it, as
// full-screen CLIs do, keeps pasted newlines in the text, and with
// --newline-after-paste DUR takes an Enter within DUR of a paste's end as a
// newline (as Gemini CLI does), so the text waits for the next Enter. --name sets what {name} stands for (default "mockagent").
//
// --traffic-log FILE turns on traffic mode, for soak tests (see
// traffic.go): with --traffic-rate R the agent sends R messages a second
// (status to one peer, questions, lists, role: addresses, the one-line
// form, messages to team-lead) to --traffic-peers and --traffic-roles,
// chosen by a PRNG seeded with --traffic-seed, until the --traffic-stop
// file exists; it answers every question it receives, and logs every
// message it sends and every envelope it receives, with its id, to FILE.
// In traffic mode SIGUSR1 makes it SIGKILL itself once what it read is
// logged.
//
// The script has one command per line; blank lines and lines starting with
// '#' are skipped. TEXT and values decode \n \r \t \e (ESC) \\ \" and \xHH,
// and {name} is replaced by --name:
//
//	say TEXT                 print TEXT and "\n" (TEXT starts after the one blank that follows "say")
//	write TEXT               print TEXT, no newline
//	route k=v k="v w" ...    print a multi-line [ROUTE] envelope, keys in order, body last
//	route1 k=v ...           print the one-line form [ROUTE] k: v ... body: x [/ROUTE]
//	gap topic=... question=... [context=...] [urgency=...]   print a <gap> block
//	burst N route|route1|gap k=v ...   print N blocks back to back; {i} is 1..N
//	chunk N                  from now on write N bytes per write(2), 1ms apart (0: whole writes)
//	expect REGEX             wait for an input line matching REGEX (Go regexp, taken raw)
//	expectn N REGEX          wait for N matching input lines
//	timeout DUR              expect's timeout (default 30s)
//	sleep DUR                pause (Go duration: 500ms, 2s)
//	size                     print "size COLSxROWS"
//	ignore-term              ignore SIGTERM from now on
//	exit CODE                exit with CODE
//	idle                     read input until EOF or SIGTERM (also what happens at the end of the script)
//
// Input lines end at CR, LF or CRLF; escape sequences (bracketed paste
// markers included) and control characters are removed before matching, and
// lines are consumed in order (a line that does not match is dropped). An
// expect that times out prints "mockagent: timeout waiting for REGEX" and
// exits 3 (if the input ends first: "mockagent: input closed while waiting
// for REGEX", exit 3). A script error prints the line number and exits 2.
// SIGTERM exits 143 (ESC[?2004l and the terminal mode are restored first).
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/teamlead/teamlead/internal/term"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() { os.Exit(realMain(os.Args[1:])) }

// cutSystemPrompt takes Claude Code's --append-system-prompt TEXT out of
// args, wherever it is (the console appends it after the script when an
// agent uses the claude-code preset), and returns the rest and TEXT. The
// --mcp-config FILE (Claude Code) and -c mcp_servers.… (Codex) the console
// appends for teamlead's tools are taken out and ignored.
func cutSystemPrompt(args []string) ([]string, string) {
	var rest []string
	var text string
	for i := 0; i < len(args); i++ {
		if args[i] == "--append-system-prompt" && i+1 < len(args) {
			text = args[i+1]
			i++
			continue
		}
		if args[i] == "--mcp-config" && i+1 < len(args) || args[i] == "-c" && i+1 < len(args) && strings.HasPrefix(args[i+1], "mcp_servers.") {
			i++ // Codex's -c mcp_servers.… too
			continue
		}
		rest = append(rest, args[i])
	}
	return rest, text
}

// realMain runs the mock and returns its exit status.
func realMain(args []string) int {
	fs := flag.NewFlagSet("mockagent", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mockagent [flags] SCRIPT_FILE | mockagent [flags] -e 'script'")
		fs.PrintDefaults()
	}
	record := fs.String("record", "", "append every byte read from stdin to `FILE`, raw")
	raw := fs.Bool("raw", false, "put the terminal in raw mode (no echo, no line editing; output still turns \\n into CRLF)")
	bracketed := fs.Bool("bracketed-paste", false, "enable bracketed paste (ESC[?2004h) at start, disable at exit; implies --raw")
	box := fs.Bool("input-box", false, "draw what is typed and not yet submitted on a \"> \" row, cursor after it, as full-screen CLIs do; a pasted newline stays in the text; implies --bracketed-paste")
	afterPaste := fs.Duration("newline-after-paste", 0, "with --input-box, take an Enter within `DUR` of a paste's end as a newline (as Gemini CLI does), so the text waits for the next Enter")
	name := fs.String("name", "mockagent", "`NAME` substituted for {name} in the script")
	expr := fs.String("e", "", "script `text` (instead of SCRIPT_FILE)")
	var to trafficOptions
	fs.StringVar(&to.log, "traffic-log", "", "traffic mode: log every message sent and every envelope received, with its id, to `FILE` (appended)")
	fs.Float64Var(&to.rate, "traffic-rate", 0, "traffic mode: messages per second to send (0: only log what is received)")
	peers := fs.String("traffic-peers", "", "traffic mode: comma-separated `NAMES` of the agents to send to")
	roles := fs.String("traffic-roles", "", "traffic mode: comma-separated `ROLES` to address as role:R")
	fs.Uint64Var(&to.seed, "traffic-seed", 1, "traffic mode: seed of the random choices (with the number of earlier starts in the log)")
	fs.StringVar(&to.stop, "traffic-stop", "", "traffic mode: stop sending once `FILE` exists")
	args, systemPrompt := cutSystemPrompt(args)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	src := *expr
	switch {
	case *expr != "" && fs.NArg() > 0:
		fmt.Fprintln(os.Stderr, "mockagent: give SCRIPT_FILE or -e, not both")
		return exitUsage
	case *expr == "" && fs.NArg() != 1:
		fs.Usage()
		return exitUsage
	case *expr == "":
		b, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(os.Stderr, "mockagent: %v\n", err)
			return exitUsage
		}
		src = string(b)
	}
	to.peers, to.roles = parseList(*peers), parseList(*roles)
	if to.log == "" && (to.rate != 0 || len(to.peers) > 0 || len(to.roles) > 0 || to.stop != "") {
		fmt.Fprintln(os.Stderr, "mockagent: --traffic-rate, --traffic-peers, --traffic-roles and --traffic-stop need --traffic-log FILE")
		return exitUsage
	}
	if to.rate < 0 || to.rate > 1000 {
		fmt.Fprintf(os.Stderr, "mockagent: --traffic-rate %v: want 0 to 1000 messages per second\n", to.rate)
		return exitUsage
	}
	if to.rate > 0 {
		to.every = time.Duration(float64(time.Second) / to.rate)
	}
	file := "-e"
	if fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	cmds, err := Parse(src)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mockagent: %s: %v\n", file, err)
		return exitUsage
	}

	if systemPrompt != "" && *record != "" {
		// As Claude Code takes it; kept beside the input record for the tests.
		if err := os.WriteFile(*record+".system-prompt", []byte(systemPrompt), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "mockagent: --append-system-prompt: %v\n", err)
			return exitUsage
		}
	}
	var rec io.Writer
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mockagent: --record: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		rec = f
	}

	// SIGTERM ends the mock cleanly (exit 143) unless ignore-term.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)

	*bracketed = *bracketed || *box
	var restore func()
	if *raw || *bracketed {
		r, err := term.MakeRaw(int(os.Stdin.Fd()))
		if err != nil {
			fmt.Fprintf(os.Stderr, "mockagent: --raw needs a terminal on stdin: %v\n", err)
			return exitUsage
		}
		restore = r
	}
	if *bracketed {
		_, _ = os.Stdout.WriteString("\x1b[?2004h")
	}
	var once sync.Once
	cleanup := func() {
		once.Do(func() {
			if *bracketed {
				_, _ = os.Stdout.WriteString("\x1b[?2004l")
			}
			if restore != nil {
				restore()
			}
		})
	}
	go func() {
		<-sigs
		cleanup()
		os.Exit(128 + int(syscall.SIGTERM))
	}()

	var tr *traffic
	if to.log != "" {
		if tr, err = newTraffic(to, *name, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "mockagent: %v\n", err)
			return exitUsage
		}
	}
	in := newInputLines()
	if *box {
		in.box = &inputBox{out: os.Stdout, afterPaste: *afterPaste}
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			if tr != nil {
				// Read only under readMu, and only once input is there,
				// so a self-kill (which takes readMu) never lands between
				// a read and the log of what it read.
				tr.waitInput(int(os.Stdin.Fd()))
				tr.readMu.Lock()
			}
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				if rec != nil {
					_, _ = rec.Write(buf[:n])
				}
				if tr != nil {
					tr.feed(buf[:n])
				}
			}
			if tr != nil {
				tr.readMu.Unlock()
			}
			if n > 0 {
				in.feed(buf[:n])
			}
			if err != nil {
				in.close()
				return
			}
		}
	}()

	var out io.Writer = os.Stdout
	if in.box != nil {
		out = in.box
	}
	r := &runner{
		out:        out,
		in:         in,
		name:       *name,
		size:       func() (int, int, error) { return term.Size(int(os.Stdout.Fd())) },
		ignoreTerm: func() { signal.Ignore(syscall.SIGTERM) },
	}
	if tr != nil {
		tr.selfKill()
		go tr.run()
	}
	code, exit := r.run(cmds)
	if !exit {
		in.waitEOF()
	}
	cleanup()
	return code
}
