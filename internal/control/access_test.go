package control

import "testing"

// The word an agent's answer starts with is quoted after the operation,
// not taken for it (red team 16a, finding 12: "only the human may yes p-1").
func TestDescribeAnswerNamesTheOperation(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Cmd: "answer", ID: "p-1", Text: "yes"}, `answer p-1 with "yes"`},
		{Request{Cmd: "answer", ID: "p-2", Text: "always prefix"}, `answer p-2 with "always"`},
		{Request{Cmd: "answer", ID: "q-3"}, "answer q-3"},
		{Request{Cmd: "answer", ID: "c-4", Text: "approve looks fine"}, `give the verdict "approve" on c-4`},
	} {
		if got := describe(c.req); got != c.want {
			t.Errorf("describe(%+v) = %q, want %q", c.req, got, c.want)
		}
	}
}
