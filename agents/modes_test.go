package agents

import "testing"

func TestModeScanner(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []bool
	}{
		{"enable", "\x1b[?2004h", []bool{true}},
		{"disable", "\x1b[?2004l", []bool{false}},
		{"combined params", "\x1b[?1049;2004h\x1b[?25;2004;1l", []bool{true, false}},
		{"other mode", "\x1b[?1049h\x1b[?20040h\x1b[?200h", nil},
		{"not private", "\x1b[2004h", nil},
		{"in text", "abc\x1b[?2004hdef\x1b[31m\x1b[?2004lx", []bool{true, false}},
		{"interrupted", "\x1b[?20\x1b[?2004h", []bool{true}},
		{"garbage inside", "\x1b[?2004xh", nil},
		{"overflow", "\x1b[?" + "1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1" + ";2004h", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every way of splitting the input in two reads gives the same
			// result, and so does one byte per read.
			splits := [][]string{{tt.in}}
			for i := 1; i < len(tt.in); i++ {
				splits = append(splits, []string{tt.in[:i], tt.in[i:]})
			}
			var bytewise []string
			for i := range len(tt.in) {
				bytewise = append(bytewise, tt.in[i:i+1])
			}
			splits = append(splits, bytewise)
			for _, parts := range splits {
				var s modeScanner
				var got []bool
				for _, p := range parts {
					s.scan([]byte(p), func(on bool) { got = append(got, on) })
				}
				if len(got) != len(tt.want) {
					t.Fatalf("parts %q: got %v, want %v", parts, got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Fatalf("parts %q: got %v, want %v", parts, got, tt.want)
					}
				}
			}
		})
	}
}
