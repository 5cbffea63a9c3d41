package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Op is a script command name.
type Op string

// Script commands.
const (
	OpSay        Op = "say"         // say TEXT: print TEXT and "\n"
	OpWrite      Op = "write"       // write TEXT: print TEXT
	OpRoute      Op = "route"       // route k=v ...: multi-line [ROUTE] envelope
	OpRoute1     Op = "route1"      // route1 k=v ...: one-line [ROUTE] envelope
	OpGap        Op = "gap"         // gap k=v ...: <gap> block
	OpChunk      Op = "chunk"       // chunk N: write N bytes per write(2)
	OpExpect     Op = "expect"      // expect REGEX: wait for a matching input line
	OpExpectN    Op = "expectn"     // expectn N REGEX: wait for N matching lines
	OpTimeout    Op = "timeout"     // timeout DUR: expect's timeout
	OpBurst      Op = "burst"       // burst N route|route1|gap k=v ...
	OpSleep      Op = "sleep"       // sleep DUR
	OpExit       Op = "exit"        // exit CODE
	OpIdle       Op = "idle"        // idle: read input until EOF or SIGTERM
	OpIgnoreTerm Op = "ignore-term" // ignore-term: ignore SIGTERM
	OpSize       Op = "size"        // size: print "size COLSxROWS"
	OpShowInput  Op = "show-input"  // show-input: print the input lines expect has consumed, as an input box redraws what was typed
	OpWriteFile  Op = "writefile"   // writefile PATH TEXT: write TEXT to PATH (folders created) by a rename, as atomic writers do
	OpDialog     Op = "dialog"      // dialog CLI COMMAND: show CLI's permission dialog asking to run COMMAND
	OpExpectKey  Op = "expectkey"   // expectkey KEY: wait for KEY typed (no Enter needed), e.g. 1, y, \e
)

// Pair is one key=value argument.
type Pair struct {
	// Key is the key as written.
	Key string
	// Value is the value with escapes decoded.
	Value string
}

// Command is one parsed script line.
type Command struct {
	// Line is the 1-based line number in the script.
	Line int
	// Op is the command.
	Op Op
	// Text is the decoded TEXT of say and write.
	Text string
	// Pairs are the key=value arguments of route, route1 and gap.
	Pairs []Pair
	// N is the number of chunk, expectn and burst, or exit's code.
	N int
	// Dur is the duration of sleep and timeout.
	Dur time.Duration
	// Re is the pattern of expect and expectn.
	Re *regexp.Regexp
	// Sub is the repeated command of burst.
	Sub *Command
	// Path is writefile's file.
	Path string
}

// ParseError is a script error at a line.
type ParseError struct {
	// Line is the 1-based line number.
	Line int
	// Msg says what is wrong.
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// maxRepeat bounds the counts of burst and expectn, so that a typo cannot
// make the mock run for ever.
const maxRepeat = 100_000

// Parse parses a whole script. Lines are trimmed of leading blanks and a
// trailing CR; blank lines and lines starting with '#' are skipped.
func Parse(src string) ([]Command, error) {
	var cmds []Command
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = strings.TrimLeft(line, " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		c, err := parseLine(line, i+1)
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// parseLine parses one non-blank, non-comment line.
func parseLine(line string, n int) (Command, error) {
	word, rest := line, ""
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		word, rest = line[:i], line[i+1:]
	}
	c := Command{Line: n, Op: Op(word)}
	errf := func(format string, args ...any) (Command, error) {
		return Command{}, &ParseError{Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	args := strings.TrimSpace(rest)
	var err error
	switch c.Op {
	case OpSay, OpWrite:
		// TEXT is everything after the single blank that follows the word.
		if c.Text, err = Unescape(rest); err != nil {
			return errf("%s: %v", word, err)
		}
	case OpDialog:
		cli, action, ok := strings.Cut(rest, " ")
		if !ok || action == "" {
			return errf("dialog needs a CLI and a COMMAND")
		}
		if c.Text, err = dialogText(cli, action); err != nil {
			return errf("%v", err)
		}
	case OpExpectKey:
		if c.Text, err = Unescape(args); err != nil || c.Text == "" {
			return errf("expectkey: want a key, like 1, y or \\e")
		}
	case OpWriteFile:
		path, text, ok := strings.Cut(rest, " ")
		if !ok || path == "" {
			return errf("writefile needs a PATH and a TEXT")
		}
		c.Path = path
		if c.Text, err = Unescape(text); err != nil {
			return errf("%s: %v", word, err)
		}
	case OpRoute, OpRoute1, OpGap:
		if c.Pairs, err = parsePairs(args); err != nil {
			return errf("%s: %v", word, err)
		}
	case OpChunk, OpExit:
		if c.N, err = strconv.Atoi(args); err != nil || c.N < 0 || (c.Op == OpExit && c.N > 255) {
			return errf("%s: want a number (exit: 0-255), got %q", word, args)
		}
	case OpSleep, OpTimeout:
		if c.Dur, err = time.ParseDuration(args); err != nil || c.Dur < 0 {
			return errf("%s: want a duration like 500ms or 2s, got %q", word, args)
		}
	case OpExpect:
		if args == "" {
			return errf("expect: want a regular expression")
		}
		if c.Re, err = regexp.Compile(args); err != nil {
			return errf("expect: %v", err)
		}
		c.N = 1
	case OpExpectN:
		num, re := splitWord(args)
		if c.N, err = strconv.Atoi(num); err != nil || c.N < 1 || c.N > maxRepeat {
			return errf("expectn: want a count from 1 to %d, got %q", maxRepeat, num)
		}
		if re == "" {
			return errf("expectn: want a regular expression after the count")
		}
		if c.Re, err = regexp.Compile(re); err != nil {
			return errf("expectn: %v", err)
		}
	case OpBurst:
		num, sub := splitWord(args)
		if c.N, err = strconv.Atoi(num); err != nil || c.N < 0 || c.N > maxRepeat {
			return errf("burst: want a count from 0 to %d, got %q", maxRepeat, num)
		}
		if sub == "" {
			return errf("burst: want route, route1 or gap after the count")
		}
		s, err := parseLine(sub, n)
		if err != nil {
			return Command{}, err
		}
		if s.Op != OpRoute && s.Op != OpRoute1 && s.Op != OpGap {
			return errf("burst: want route, route1 or gap after the count, got %q", s.Op)
		}
		c.Sub = &s
	case OpIdle, OpIgnoreTerm, OpSize, OpShowInput:
		if args != "" {
			return errf("%s takes no arguments, got %q", word, args)
		}
	default:
		return errf("unknown command %q (want say, write, route, route1, gap, chunk, expect, expectn, timeout, burst, sleep, exit, idle, ignore-term or size)", word)
	}
	return c, nil
}

// splitWord splits s at its first blank into a word and the rest, trimmed.
func splitWord(s string) (word, rest string) {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], strings.TrimSpace(s[i+1:])
	}
	return s, ""
}

// parsePairs parses `key=value key="value with spaces" ...`. Values are
// decoded with Unescape; inside quotes, \" is a quote.
func parsePairs(s string) ([]Pair, error) {
	var ps []Pair
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return ps, nil
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[start:i]
		if i == len(s) || s[i] != '=' {
			return nil, fmt.Errorf("want key=value, got %q", key)
		}
		if key == "" {
			return nil, fmt.Errorf("empty key at column %d", start+1)
		}
		i++ // '='
		var raw string
		if i < len(s) && s[i] == '"' {
			i++
			vstart := i
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				i++
			}
			if i >= len(s) {
				return nil, fmt.Errorf("value of %q: missing closing quote", key)
			}
			raw = s[vstart:i]
			i++ // closing quote
			if i < len(s) && s[i] != ' ' && s[i] != '\t' {
				return nil, fmt.Errorf("value of %q: want a blank after the closing quote", key)
			}
		} else {
			vstart := i
			for i < len(s) && s[i] != ' ' && s[i] != '\t' {
				i++
			}
			raw = s[vstart:i]
		}
		v, err := Unescape(raw)
		if err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		ps = append(ps, Pair{Key: key, Value: v})
	}
}

// Unescape decodes \n \r \t \e (ESC) \\ \" and \xHH.
func Unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i == len(s) {
			return "", fmt.Errorf(`trailing \`)
		}
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'e':
			b.WriteByte(0x1b)
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case 'x':
			if i+3 > len(s) {
				return "", fmt.Errorf(`\x wants two hex digits`)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf(`\x wants two hex digits, got %q`, s[i+1:i+3])
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", fmt.Errorf(`unknown escape \%c (use \n \r \t \e \\ \" or \xHH)`, s[i])
		}
	}
	return b.String(), nil
}
