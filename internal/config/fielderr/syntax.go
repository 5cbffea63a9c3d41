package fielderr

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The YAML library names the wrong line in its syntax errors: a parser
// error ("did not find expected key") gives the line where the enclosing
// block began, counted from 0, rather than the line of the problem, so an
// indentation mistake on line 5 of a team file was reported on line 1.
// SyntaxError finds the real line itself.

// SyntaxError turns err, the error yaml.Unmarshal gave for data, into a
// FieldError at the line of the problem, saying in plain words what is
// wrong and how to fix it.
func SyntaxError(file string, data []byte, err error) *FieldError {
	line, msg := syntaxProblem(data, err)
	return &FieldError{File: file, Line: line, Msg: "not valid YAML: " + msg}
}

// yamlErrLine is the "line N: " yaml puts in its messages.
var yamlErrLine = regexp.MustCompile(`^line (\d+): `)

// maxSyntaxScan bounds the lines syntaxProblem re-parses to find the line.
const maxSyntaxScan = 5000

// syntaxProblem returns the line of the syntax error err of data and its
// message with a hint.
func syntaxProblem(data []byte, err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	if l := problemLine(data); l > 0 {
		line = l
	}
	line = max(line, 1)
	return line, msg + syntaxHint(msg, lineText(data, line))
}

// problemLine is the first line of the last run of failing prefixes: the
// file cut after that line is not valid YAML, nor is it cut after any later
// line, while cut one line earlier it is. (The first failing prefix would
// be wrong: a file cut inside a quoted text or a [list] that goes on over
// several lines fails too, and is fine once the next lines are in.) It
// returns 0 when the file is too long to scan.
func problemLine(data []byte) int {
	ends := lineEnds(data)
	if len(ends) > maxSyntaxScan {
		return 0
	}
	var n yaml.Node
	line := len(ends)
	for line > 1 && yaml.Unmarshal(data[:ends[line-2]], &n) != nil {
		line--
	}
	return line
}

// lineEnds are the offsets just past each line of data (past its newline).
func lineEnds(data []byte) []int {
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	return ends
}

// lineText is line n (from 1) of data, without its newline.
func lineText(data []byte, n int) string {
	lines := bytes.Split(data, []byte("\n"))
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimRight(string(lines[n-1]), "\r")
}

// syntaxHint says how to fix the common YAML mistakes, from yaml's message
// and the text of the line.
func syntaxHint(msg, text string) string {
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	switch {
	case strings.Contains(indent, "\t"):
		return "; this line is indented with a tab: YAML indents with spaces only"
	case strings.Contains(msg, "did not find expected key"),
		strings.Contains(msg, "did not find expected '-' indicator"),
		strings.Contains(msg, "block sequence entries are not allowed"),
		strings.Contains(msg, "did not find expected <document start>"):
		return "; check the indentation of this line: the keys of one mapping start in the same column, and so do the items (- ...) of one list"
	case strings.Contains(msg, "mapping values are not allowed"):
		return "; a value that contains \": \" must be quoted (\"...\"), or this line is indented too far"
	case strings.Contains(msg, "could not find expected ':'"):
		return "; a key needs a colon after it (key: value), or a quote opened here is not closed"
	case strings.Contains(msg, "did not find expected ',' or ']'"):
		return "; a list written in [ ] is not closed, or an item in it needs quotes"
	case strings.Contains(msg, "did not find expected ',' or '}'"):
		return "; a mapping written in { } is not closed, or a value in it needs quotes"
	case strings.Contains(msg, "unexpected end of stream"):
		return "; a quote or a bracket opened on this line is never closed"
	case strings.Contains(msg, "found character that cannot start any token"):
		return "; quote the value (\"...\"): it starts with a character YAML keeps for itself, like ` @ or %"
	}
	return ""
}
