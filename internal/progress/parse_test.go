package progress

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// readTestdata returns a file of testdata/.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseSeedExample(t *testing.T) {
	got, err := Parse(readTestdata(t, "seed-2.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Workflow{
		Version:     "2.0",
		WorkflowID:  "wf-{timestamp}-{random}",
		Task:        "Brief task summary",
		Primary:     "n8n-expert",
		Supporting:  []string{"vitest-expert"},
		Strategy:    "sequential|parallel|single",
		Status:      "initialized|in_progress|completed|failed",
		CurrentStep: 1,
		TotalSteps:  3,
		Steps: []Step{{
			Number: 1, Expert: "n8n-expert", Action: "analyze_workflow",
			Status: "completed", Duration: 1200 * time.Millisecond,
		}},
		Next: &NextStep{Number: 2, Expert: "vitest-expert", Action: "create_test"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseStepsShape(t *testing.T) {
	got, err := Parse(readTestdata(t, "steps-shape.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Workflow{
		Version:     "2.1",
		WorkflowID:  "wf-1767607200-k3x9",
		Task:        "Hex SQL injection rule with tests and docs",
		Primary:     "n8n-expert",
		Supporting:  []string{"vitest-expert", "docs-expert"},
		Strategy:    "sequential",
		Status:      "in_progress",
		CurrentStep: 4,
		TotalSteps:  5,
		Steps: []Step{
			{Number: 1, Expert: "n8n-expert", Action: "analyze_workflow", Status: "completed",
				Duration: 2 * time.Minute, StartedAt: ts("2026-01-05T10:00:05Z"), CompletedAt: ts("2026-01-05T10:02:05Z")},
			{Number: 2, Expert: "n8n-expert", Action: "add_rule", Status: "completed",
				Duration: 270 * time.Second, Artifacts: []string{"services/workflow/config/rules.config.json"},
				StartedAt: ts("2026-01-05T10:02:10Z"), CompletedAt: ts("2026-01-05T10:06:40Z")},
			{Number: 3, Expert: "vitest-expert", Action: "create_test", Status: "failed",
				Duration: 150 * time.Second, StartedAt: ts("2026-01-05T10:07:00Z"), CompletedAt: ts("2026-01-05T10:09:30Z")},
			{Number: 4, Expert: "vitest-expert", Action: "create_test", Status: "in_progress",
				StartedAt: ts("2026-01-05T10:12:00Z")},
			{Number: 5, Expert: "docs-expert", Action: "update_rule_docs", Status: "pending"},
		},
		// No next_step in the file: the first pending step.
		Next:      &NextStep{Number: 5, Expert: "docs-expert", Action: "update_rule_docs"},
		Artifacts: []string{"tests/rules/sql_injection_hex.test.ts", "services/workflow/config/rules.config.json"},
		Errors:    []string{"step: 3; expert: vitest-expert; message: vitest.config.ts not found; recovered: true"},
		UpdatedAt: ts("2026-01-05T10:21:30Z"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// TestParseFields covers single mappings, each on a small 2.0 file.
func TestParseFields(t *testing.T) {
	tests := []struct {
		name  string
		json  string
		check func(*Workflow) any
		want  any
	}{
		{"missing optional fields", `{"version":"2.0"}`,
			func(w *Workflow) any { return *w }, Workflow{Version: "2.0"}},
		{"version as a number", `{"version":2.0}`,
			func(w *Workflow) any { return w.Version }, "2.0"},
		{"task as a string", `{"version":"2.0","task":"T-42 fix login"}`,
			func(w *Workflow) any { return w.Task }, "T-42 fix login"},
		{"task without summary", `{"version":"2.0","task":{"original_request":"please fix it"}}`,
			func(w *Workflow) any { return w.Task }, "please fix it"},
		{"status spelled loosely", `{"version":"2.0","status":" In-Progress "}`,
			func(w *Workflow) any { return w.Status }, "in_progress"},
		{"estimated steps when no total", `{"version":"2.0","classification":{"estimated_steps":4}}`,
			func(w *Workflow) any { return w.TotalSteps }, 4},
		{"steps count when no total", `{"version":"2.1","steps":[{"expert":"a"},{"expert":"b"}]}`,
			func(w *Workflow) any { return w.TotalSteps }, 2},
		{"step numbers from position", `{"version":"2.1","steps":[{"expert":"a"},{"expert":"b","status":"pending"}]}`,
			func(w *Workflow) any { return []int{w.Steps[0].Number, w.Steps[1].Number} }, []int{1, 2}},
		{"steps[] wins over completed_steps", `{"version":"2.0","completed_steps":[{"step":9}],"steps":[{"step":1,"status":"completed"}]}`,
			func(w *Workflow) any { return w.Steps }, []Step{{Number: 1, Status: "completed"}}},
		{"completed step with its own status", `{"version":"2.0","completed_steps":[{"step":1,"status":"failed"}]}`,
			func(w *Workflow) any { return w.Steps[0].Status }, "failed"},
		{"explicit next_step wins over pending", `{"version":"2.1","steps":[{"step":2,"expert":"b","status":"pending"}],"next_step":{"step":3,"expert":"c"}}`,
			func(w *Workflow) any { return *w.Next }, NextStep{Number: 3, Expert: "c"}},
		{"empty next_step is none", `{"version":"2.0","next_step":{}}`,
			func(w *Workflow) any { return w.Next == nil }, true},
		{"null next_step is none", `{"version":"2.0","next_step":null}`,
			func(w *Workflow) any { return w.Next == nil }, true},
		{"context as a string", `{"version":"2.0","next_step":{"expert":"x","context":"see rules.json"}}`,
			func(w *Workflow) any { return w.Next.Context }, "see rules.json"},
		{"nested context", `{"version":"2.0","next_step":{"expert":"x","context":{"a":{"b":1},"n":2,"ok":true,"l":[]}}}`,
			func(w *Workflow) any { return w.Next.Context }, "a: {\"b\":1}\nn: 2\nok: true"},
		{"artifacts as a list", `{"version":"2.1","artifacts":["a.go","b.go"]}`,
			func(w *Workflow) any { return w.Artifacts }, []string{"a.go", "b.go"}},
		{"artifacts as objects", `{"version":"2.0","artifacts":{"files_created":[{"path":"a.go","lines":3}],"files_modified":["a.go","b.go"]}}`,
			func(w *Workflow) any { return w.Artifacts }, []string{"a.go", "b.go"}},
		{"errors as strings", `{"version":"2.0","errors":["boom",""," bang "]}`,
			func(w *Workflow) any { return w.Errors }, []string{"boom", "bang"}},
		{"duration from times", `{"version":"2.1","steps":[{"started_at":"2026-01-05T10:00:00Z","completed_at":"2026-01-05T10:00:30Z"}]}`,
			func(w *Workflow) any { return w.Steps[0].Duration }, 30 * time.Second},
		{"negative duration", `{"version":"2.0","completed_steps":[{"duration_ms":-5}]}`,
			func(w *Workflow) any { return w.Steps[0].Duration }, time.Duration(0)},
		{"endless duration", `{"version":"2.0","completed_steps":[{"duration_ms":1e300}]}`,
			func(w *Workflow) any { return w.Steps[0].Duration }, time.Duration(math.MaxInt64)},
		{"unix milliseconds", `{"version":"2.0","updated_at":1767607200000}`,
			func(w *Workflow) any { return w.UpdatedAt.UTC() }, ts("2026-01-05T10:00:00Z")},
		{"time without zone", `{"version":"2.0","updated_at":"2026-01-05T10:00:00"}`,
			func(w *Workflow) any { return w.UpdatedAt }, ts("2026-01-05T10:00:00Z")},
		{"byte order mark", "\xef\xbb\xbf{\"version\":\"2.0\",\"status\":\"completed\"}",
			func(w *Workflow) any { return w.Status }, "completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.check(w); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestParseHandoffContext reads seed 003 section 7's context passing example.
func TestParseHandoffContext(t *testing.T) {
	file := `{"version": "2.0", "status": "in_progress",
  "next_step": {
    "expert": "vitest-expert",
    "action": "create_test",
    "context": {
      "pattern_to_test": "sql_injection_hex",
      "expected_result": "BLOCKED",
      "relevant_files": [
        "services/workflow/config/rules.config.json"
      ],
      "notes": "Pattern added at line 245, category CODE_INJECTION"
    }
  }}`
	w, err := Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	want := NextStep{Expert: "vitest-expert", Action: "create_test", Context: `pattern_to_test: sql_injection_hex
expected_result: BLOCKED
relevant_files: services/workflow/config/rules.config.json
notes: Pattern added at line 245, category CODE_INJECTION`}
	if *w.Next != want {
		t.Errorf("got %+v, want %+v", *w.Next, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		want     error
		contains []string
	}{
		{"empty", "", ErrNotJSON, []string{"half-written? it will be read again when it changes"}},
		{"spaces", " \n\t", ErrNotJSON, nil},
		{"binary", "\x00\x01\xff\xfeELF\x02", ErrNotJSON, []string{"at byte 1"}},
		{"text", "status: in_progress\n", ErrNotJSON, nil},
		{"two objects", `{"version":"2.0"}{"version":"2.0"}`, ErrNotJSON, nil},
		{"array", `[{"version":"2.0"}]`, ErrSchema, []string{"top level: want an object, got array"}},
		{"string", `"2.0"`, ErrSchema, []string{"got string"}},
		{"null", `null`, ErrSchema, []string{"got null"}},
		{"no version", `{"status":"in_progress"}`, ErrUnknownVersion, []string{`no "version"`, "2.0"}},
		{"version 1", `{"version":"1.0"}`, ErrUnknownVersion, []string{`"1.0"`, "supported: 2.0"}},
		{"version 3", `{"version":"3.0","steps":[]}`, ErrUnknownVersion, []string{`"3.0"`}},
		{"version 20", `{"version":"20"}`, ErrUnknownVersion, nil},
		{"version object", `{"version":{"major":2}}`, ErrSchema, []string{"version: want a string, got object"}},
		{"current_step text", `{"version":"2.0","current_step":"two"}`, ErrSchema, []string{"current_step: want a number, got string"}},
		{"current_step fraction", `{"version":"2.0","current_step":1.5}`, ErrSchema, []string{"current_step: want a whole number"}},
		{"total_steps huge", `{"version":"2.0","total_steps":1e400}`, ErrSchema, []string{"total_steps: number out of range"}},
		{"status number list", `{"version":"2.0","status":[1]}`, ErrSchema, []string{"status: want a string, got array"}},
		{"classification list", `{"version":"2.0","classification":["a"]}`, ErrSchema, []string{"classification: want an object, got array"}},
		{"supporting numbers", `{"version":"2.0","classification":{"supporting_experts":["a",2]}}`, ErrSchema, []string{"classification.supporting_experts[1]: want a string, got number"}},
		{"completed_steps object", `{"version":"2.0","completed_steps":{"step":1}}`, ErrSchema, []string{"completed_steps: want a list, got object"}},
		{"steps strings", `{"version":"2.1","steps":["analyze"]}`, ErrSchema, []string{"steps[0]: want an object, got string"}},
		{"step number text", `{"version":"2.1","steps":[{"step":1},{"step":"2"}]}`, ErrSchema, []string{"steps[1].step: want a number"}},
		{"step duration text", `{"version":"2.0","completed_steps":[{"duration_ms":"1s"}]}`, ErrSchema, []string{"completed_steps[0].duration_ms"}},
		{"timestamp object", `{"version":"2.0","updated_at":{}}`, ErrSchema, []string{"updated_at: want a time, got object"}},
		{"next_step string", `{"version":"2.0","next_step":"vitest-expert"}`, ErrSchema, []string{"next_step: want an object, got string"}},
		{"artifacts number", `{"version":"2.0","artifacts":{"files_created":3}}`, ErrSchema, []string{"artifacts.files_created: want a list of files, got number"}},
		{"task list", `{"version":"2.0","task":["a"]}`, ErrSchema, []string{"task: want an object, got array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse([]byte(tt.data))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v (workflow %+v), want %v", err, w, tt.want)
			}
			if w != nil {
				t.Errorf("a workflow along with the error: %+v", w)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestParseNotJSONKeepsTheJSONError(t *testing.T) {
	_, err := Parse([]byte(`{"version": "2.0",`))
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Fatalf("%v: no *json.SyntaxError inside", err)
	}
}

// TestParseHalfWritten cuts the seed's example at every byte: each prefix
// is ErrNotJSON, never a workflow or a panic.
func TestParseHalfWritten(t *testing.T) {
	for _, name := range []string{"seed-2.0.json", "steps-shape.json"} {
		data := readTestdata(t, name)
		end := len(strings.TrimRight(string(data), " \n"))
		for cut := 0; cut < end; cut++ {
			w, err := Parse(data[:cut])
			if !errors.Is(err, ErrNotJSON) || w != nil {
				t.Fatalf("%s cut at %d: got %v, %v; want ErrNotJSON", name, cut, w, err)
			}
		}
	}
}
