package report

import "testing"

// A refusal names its process when the record has one, and says nothing
// of a pid it does not have (a sandbox's refusals name the process in
// their text): "dev, pid  ()" was shown for every connect refused.
func TestImpersonatorNamesOnlyWhatItKnows(t *testing.T) {
	for _, tc := range []struct {
		agent  string
		fields map[string]string
		want   string
	}{
		{"dev", map[string]string{"pid": "12", "cmdline": "sh -c x"}, "dev, pid 12 (sh -c x)"},
		{"dev", map[string]string{"pid": "12"}, "dev, pid 12"},
		{"dev", map[string]string{"socket": "@x"}, "dev"},
		{"dev", map[string]string{"pid": "0"}, "dev"},
		{"", nil, "an agent's detached process"},
	} {
		if got := Impersonator(tc.agent, tc.fields); got != tc.want {
			t.Errorf("Impersonator(%q, %v) = %q, want %q", tc.agent, tc.fields, got, tc.want)
		}
	}
}
