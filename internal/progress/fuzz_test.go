package progress

import (
	"errors"
	"testing"
)

// FuzzParse: arbitrary bytes never panic, and Parse returns either a
// workflow or exactly one of its errors.
func FuzzParse(f *testing.F) {
	f.Add(readTestdata(f, "seed-2.0.json"))
	f.Add(readTestdata(f, "steps-shape.json"))
	f.Add([]byte(`{"version":"2.0","next_step":{"expert":"x","context":{"a":[1,{"b":null}]}}}`))
	f.Add([]byte(`{"version":"2.1","steps":[{"step":1e3,"artifacts":{"x":[{"path":1}]}}],"errors":{"a":1}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xef, 0xbb, 0xbf, '{'})
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse(data)
		if (w == nil) == (err == nil) {
			t.Fatalf("workflow %v with error %v", w, err)
		}
		if err == nil {
			return
		}
		n := 0
		for _, sentinel := range []error{ErrNotJSON, ErrUnknownVersion, ErrSchema} {
			if errors.Is(err, sentinel) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%v matches %d of the sentinel errors", err, n)
		}
	})
}
