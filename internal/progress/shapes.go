package progress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// supportedVersions names what checkVersion accepts, for its error.
const supportedVersions = `2.0 and later 2.x ("completed_steps" or "steps")`

// checkVersion returns the file's version if it is a 2.x one.
func checkVersion(root *object) (string, error) {
	v := root.str("version")
	if root.r.err != nil {
		return "", root.r.err
	}
	if v == "" {
		return "", fmt.Errorf("%w: the file has no \"version\" (supported: %s)", ErrUnknownVersion, supportedVersions)
	}
	if v != "2" && !strings.HasPrefix(v, "2.") {
		return "", fmt.Errorf("%w %q (supported: %s)", ErrUnknownVersion, v, supportedVersions)
	}
	return v, nil
}

// readWorkflow maps the fields of either shape; problems are left in root.r.
func readWorkflow(root *object) *Workflow {
	class := root.obj("classification")
	w := &Workflow{
		WorkflowID:  root.str("workflow_id"),
		Task:        readTask(root),
		Primary:     class.str("primary_expert"),
		Supporting:  class.strs("supporting_experts"),
		Strategy:    strings.ToLower(class.str("strategy")),
		Status:      normStatus(root.str("status")),
		CurrentStep: root.integer("current_step"),
		TotalSteps:  root.integer("total_steps"),
		Artifacts:   readArtifacts(root, "artifacts"),
		Errors:      readErrors(root),
		UpdatedAt:   root.time("updated_at"),
	}
	w.Next = readNext(root)
	if root.has("steps") {
		w.Steps = readSteps(root, "steps", "")
		w.Next = orFirstPending(w.Next, w.Steps)
	} else {
		w.Steps = readSteps(root, "completed_steps", "completed")
	}
	if w.TotalSteps == 0 {
		w.TotalSteps = class.integer("estimated_steps")
	}
	if w.TotalSteps == 0 && root.has("steps") {
		w.TotalSteps = len(w.Steps)
	}
	return w
}

// readTask reads "task": a string as is, an object's summary or request.
func readTask(root *object) string {
	raw, _, ok := root.field("task")
	if !ok {
		return ""
	}
	if k := kind(raw); k == "string" || k == "number" {
		return root.str("task")
	}
	task := root.obj("task")
	for _, key := range []string{"summary", "original_request", "description", "id"} {
		if s := task.str(key); s != "" {
			return s
		}
	}
	return ""
}

// normStatus lower-cases a status and reads "in-progress" as in_progress.
func normStatus(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("-", "_", " ", "_").Replace(s)
}

// readSteps reads the list under key; status is the default for entries
// that do not give their own.
func readSteps(root *object, key, status string) []Step {
	items := root.list(key)
	steps := make([]Step, 0, len(items))
	for i, item := range items {
		o := decodeObject(root.r, fmt.Sprintf("%s[%d]", key, i), item)
		if o == nil {
			return nil
		}
		steps = append(steps, readStep(o, i+1, status))
	}
	if len(steps) == 0 {
		return nil
	}
	return steps
}

// readStep reads one step; pos is its place in the list from 1.
func readStep(o *object, pos int, status string) Step {
	s := Step{
		Number:      o.integer("step", "number"),
		Expert:      o.str("expert"),
		Action:      o.str("action"),
		Status:      normStatus(o.str("status")),
		Artifacts:   readArtifacts(o, "artifacts"),
		StartedAt:   o.time("started_at"),
		CompletedAt: o.time("completed_at", "timestamp"),
	}
	if s.Number == 0 {
		s.Number = pos
	}
	if s.Status == "" {
		s.Status = status
	}
	s.Duration = millis(o.number("duration_ms"))
	if s.Duration == 0 && !s.StartedAt.IsZero() && s.CompletedAt.After(s.StartedAt) {
		s.Duration = s.CompletedAt.Sub(s.StartedAt)
	}
	return s
}

// millis is ms milliseconds as a duration, 0 when not positive.
func millis(ms float64) time.Duration {
	const most = float64(math.MaxInt64 / int64(time.Millisecond))
	switch {
	case !(ms > 0):
		return 0
	case ms > most:
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// readNext reads "next_step"; nil when absent or naming nothing.
func readNext(root *object) *NextStep {
	o := root.obj("next_step")
	if o == nil {
		return nil
	}
	n := &NextStep{
		Number: o.integer("step", "number"),
		Expert: o.str("expert"),
		Action: o.str("action"),
	}
	if raw, _, ok := o.field("context"); ok {
		n.Context = renderText(raw, "\n")
	}
	if n.Expert == "" && n.Action == "" && n.Number == 0 {
		return nil
	}
	return n
}

// orFirstPending is next, or when nil the first pending step of the later
// shape, which may not write a next_step.
func orFirstPending(next *NextStep, steps []Step) *NextStep {
	if next != nil {
		return next
	}
	for _, s := range steps {
		if s.Status == "pending" {
			return &NextStep{Number: s.Number, Expert: s.Expert, Action: s.Action}
		}
	}
	return nil
}

// readArtifacts reads an artifacts field: a list of paths, or 2.0's object
// whose lists are joined in file order (documentation consulted left out).
func readArtifacts(o *object, key string) []string {
	raw, path, ok := o.field(key)
	if !ok {
		return nil
	}
	if kind(raw) != "object" {
		return artifactList(o.r, path, raw)
	}
	a := o.obj(key)
	var out []string
	for _, k := range a.keys {
		if k != "documentation_consulted" {
			out = append(out, artifactList(o.r, childPath(path, k), a.vals[k])...)
		}
	}
	return dedupe(out)
}

// artifactList reads a list of artifacts: paths, or objects naming one.
func artifactList(r *reader, path string, raw json.RawMessage) []string {
	switch kind(raw) {
	case "null":
		return nil
	case "string":
		return nonEmpty([]string{renderText(raw, "")})
	case "array":
		var items []json.RawMessage
		_ = json.Unmarshal(raw, &items)
		out := make([]string, 0, len(items))
		for _, item := range items {
			out = append(out, artifactName(item))
		}
		return nonEmpty(out)
	}
	r.fail(path, "want a list of files, got %s", kind(raw))
	return nil
}

// artifactName is a path as is, or an object's path/file/name member.
func artifactName(raw json.RawMessage) string {
	if kind(raw) != "object" {
		return renderText(raw, "")
	}
	o := decodeObject(&reader{}, "", raw)
	for _, key := range []string{"path", "file", "name"} {
		if v, ok := o.vals[key]; ok && kind(v) == "string" {
			return renderText(v, "")
		}
	}
	return renderText(raw, "; ")
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// readErrors reads "errors": strings as is, objects as one line of text.
func readErrors(root *object) []string {
	raw, _, ok := root.field("errors")
	if ok && kind(raw) != "array" {
		return nonEmpty([]string{renderText(raw, "; ")})
	}
	var out []string
	for _, item := range root.list("errors") {
		out = append(out, renderText(item, "; "))
	}
	return nonEmpty(out)
}

// renderText renders a JSON value for people: a string as is, an object as
// "key: value" entries in file order joined by sep, a list of scalars
// comma-separated, anything deeper as compact JSON.
func renderText(raw json.RawMessage, sep string) string {
	switch kind(raw) {
	case "null":
		return ""
	case "string":
		var s string
		_ = json.Unmarshal(raw, &s)
		return strings.TrimSpace(s)
	case "object":
		return renderObject(raw, sep)
	case "array":
		return renderList(raw)
	}
	return compact(raw)
}

// renderObject renders an object's members as "key: value" joined by sep,
// leaving out empty ones.
func renderObject(raw json.RawMessage, sep string) string {
	o := decodeObject(&reader{}, "", raw)
	if o == nil {
		return compact(raw)
	}
	lines := make([]string, 0, len(o.keys))
	for _, k := range o.keys {
		v := o.vals[k]
		text := compact(v)
		if kind(v) == "string" || kind(v) == "array" || kind(v) == "null" {
			text = renderText(v, sep)
		}
		if text != "" {
			lines = append(lines, k+": "+text)
		}
	}
	return strings.Join(lines, sep)
}

// renderList renders a list of scalars comma-separated, else compact JSON.
func renderList(raw json.RawMessage) string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return compact(raw)
	}
	parts := make([]string, 0, len(items))
	for _, item := range items {
		if k := kind(item); k == "object" || k == "array" {
			return compact(raw)
		}
		parts = append(parts, renderText(item, ""))
	}
	return strings.Join(parts, ", ")
}

// compact is raw as one-line JSON.
func compact(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return strings.TrimSpace(string(raw))
	}
	return buf.String()
}
