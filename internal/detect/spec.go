package detect

import "time"

// PermissionSpec is how to read one CLI's permission dialog off its
// screen (a preset's `permission:` section in presets.yaml). Every regex
// is Go syntax (RE2) and is matched against one screen row at a time,
// after box borders (│ ┃ ║ at either end of the row) are removed and
// trailing blanks trimmed; leading blanks are kept, so `^\s*` matches any
// indentation.
type PermissionSpec struct {
	// Match lists regexes that must all match, in this order, rows of the
	// screen for the dialog to be there: the first is searched from the
	// bottom of the screen up (the latest dialog), each next one at or
	// below the row of the one before.
	Match []string `yaml:"match"`
	// Within, when above zero, requires the last matched row to be among
	// the screen's last Within non-blank rows (a prompt on the last line,
	// like Aider's, is answered once text follows it).
	Within int `yaml:"within"`
	// Top is a regex for the dialog's first row, searched upward from the
	// first Match row; the title and the action are looked for from
	// there. Without it (or when no row matches), from the top of the
	// screen.
	Top string `yaml:"top"`
	// Tools tells which tool the dialog asks for by its title; the first
	// whose Title matches a row between Top and the first Match row (the
	// nearest such row) wins.
	Tools []ToolSpec `yaml:"tools"`
	// Action is where the requested action is on the screen, for a tool
	// that has no Action of its own.
	Action *ActionSpec `yaml:"action"`
	// Options is a regex for one option row of the dialog, with the named
	// groups `key` (what to press) and `label`; option rows are read
	// below the first Match row. Keys given by `option` need it.
	Options string `yaml:"options"`
	// Approve is the key that approves the request once.
	Approve KeySpec `yaml:"approve"`
	// ApproveAlways is the key that approves this kind of request for
	// good, when the CLI offers it (empty: not offered).
	ApproveAlways KeySpec `yaml:"approve_always"`
	// Deny is the key that refuses the request.
	Deny KeySpec `yaml:"deny"`
	// Settle is how long the dialog must have been on screen before a key
	// is pressed in it: a CLI may drop a key that arrives while it is still
	// drawing the dialog (Claude Code 2.1 does, for about 200 ms).
	Settle time.Duration `yaml:"settle"`
}

// ToolSpec names the tool a dialog asks for, by its title.
type ToolSpec struct {
	// Name is the tool's name in permission rules (Bash, Edit, Write, …);
	// empty takes the text of Title's named group `tool`.
	Name string `yaml:"name"`
	// Title is a regex for the row that names the tool.
	Title string `yaml:"title"`
	// Action is where this tool's action is, when it differs from the
	// dialog's default.
	Action *ActionSpec `yaml:"action"`
}

// ActionSpec says where the requested action (a command, a file path) is
// on the screen. Give one of Between, Above and Pattern. The rows of the action are
// joined back into one text: rows the CLI wrapped at the terminal width
// (or the width of its box) are joined with a space (or nothing, inside
// a word too long for a row), other rows with a newline; indentation and
// box borders are dropped.
type ActionSpec struct {
	// Between is two regexes: the action is the rows strictly between the
	// first row matching the first one (from the tool's title row, or
	// from Top) and the next row matching the second.
	Between []string `yaml:"between"`
	// Above is a regex: the action is the rows strictly between the
	// nearest row above the tool's title row (or the first Match row)
	// that matches it and that title row (Aider prints the command, then
	// asks on the row below it).
	Above string `yaml:"above"`
	// Pattern is a regex over the dialog's rows joined with newlines
	// (from the title row, or Top), whose named group `action` is the
	// action.
	Pattern string `yaml:"pattern"`
	// Strip is a regex removed from the start of each row of the action
	// (a gutter, line numbers, a "$ " prompt).
	Strip string `yaml:"strip"`
	// Margin is how many columns short of the terminal's (or its box's)
	// right edge the CLI wraps its text; unset, min(4, width/20). A row
	// is taken as wrapped when the next row's first word would not have
	// fitted before that margin.
	Margin *int `yaml:"margin"`
}

// KeySpec is the key that answers a dialog: the bytes of Key, or the key
// of the option whose label matches Option when the dialog shows one
// (Key otherwise). In YAML: {key: "1"}, {key: "y\r"}, {key: "\x1b"}
// (double quotes for escapes), {option: '^Yes$', key: "1"}.
type KeySpec struct {
	// Key is the bytes to send.
	Key string `yaml:"key"`
	// Option is a regex for the label of the option to choose; its row's
	// `key` group (PermissionSpec.Options) is sent.
	Option string `yaml:"option"`
}

// IsZero reports a key that is not set.
func (k KeySpec) IsZero() bool { return k.Key == "" && k.Option == "" }

// StateSpec tells busy, idle and waiting apart on a CLI's screen (a
// preset's `state:` section). Each is a list of regexes matched against
// single rows like PermissionSpec's; any one matching row is enough. A
// permission dialog counts as waiting before any of these is checked;
// then Waiting, Busy and Idle are tried in that order.
type StateSpec struct {
	// Busy marks the CLI working on a reply (a spinner row, "esc to
	// interrupt").
	Busy []string `yaml:"busy"`
	// Idle marks the CLI waiting for the user's next message (its input
	// line).
	Idle []string `yaml:"idle"`
	// Waiting marks other questions waiting for the human (a start-up
	// dialog, a question that is not a permission).
	Waiting []string `yaml:"waiting"`
}
