package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/store"
)

// RoutingResult is the routing measurement: decisions per second of the
// answerers.yaml router, against a plain map lookup of the same topics.
type RoutingResult struct {
	Routes, Topics  int
	PerSec          float64 // router decisions per second
	BaselinePerSec  float64 // map lookups per second
	MatchedNonEmpty int     // topics that matched a route other than the default
}

// routesFile builds an answerers.yaml with n routes of the shapes people
// write: exact levels, one-level and many-level wildcards.
func routesFile(n int) string {
	var b strings.Builder
	b.WriteString("version: \"1\"\nroutes:\n")
	for i := 0; i < n; i++ {
		var pattern string
		switch i % 4 {
		case 0:
			pattern = fmt.Sprintf("area%d.*", i)
		case 1:
			pattern = fmt.Sprintf("area%d.api.*", i)
		case 2:
			pattern = fmt.Sprintf("area%d.**", i)
		default:
			pattern = fmt.Sprintf("*.team%d", i)
		}
		fmt.Fprintf(&b, "  - pattern: %q\n    answerer: agent/a%d\n    sla: 1h\n", pattern, i)
	}
	b.WriteString("default:\n  answerer: human/requester\n  sla: 24h\n")
	return b.String()
}

// topicsFor makes n topics: four in five are made for a route of the
// matching shape, the fifth matches none and goes to the default.
func topicsFor(n, routes int) []string {
	out := make([]string, n)
	for i := range out {
		r := i % routes
		if i%5 == 4 {
			out[i] = fmt.Sprintf("unknown%d.topic", i)
			continue
		}
		switch r % 4 {
		case 0:
			out[i] = fmt.Sprintf("area%d.db", r)
		case 1:
			out[i] = fmt.Sprintf("area%d.api.auth", r)
		case 2:
			out[i] = fmt.Sprintf("area%d.x.y.z", r)
		default:
			out[i] = fmt.Sprintf("ops.team%d", r)
		}
	}
	return out
}

// MeasureRouting routes topics against routes for at least d.
func MeasureRouting(nRoutes, nTopics int, d time.Duration) (RoutingResult, error) {
	res := RoutingResult{Routes: nRoutes, Topics: nTopics}
	r, err := questions.ParseRoutes("bench-answerers.yaml", []byte(routesFile(nRoutes)))
	if err != nil {
		return res, err
	}
	topics := topicsFor(nTopics, nRoutes)
	for _, t := range topics {
		if r.Match(t).Pattern != "" {
			res.MatchedNonEmpty++
		}
	}
	lookup := map[string]questions.Route{}
	for _, t := range topics {
		lookup[t] = r.Match(t)
	}
	var sink int
	res.PerSec = rate(d, len(topics), func() {
		for _, t := range topics {
			sink += len(r.Match(t).Pattern)
		}
	})
	res.BaselinePerSec = rate(d, len(topics), func() {
		for _, t := range topics {
			sink += len(lookup[t].Pattern)
		}
	})
	_ = sink
	return res, nil
}

// rate runs pass (n operations) repeatedly for at least d and returns
// operations per second.
func rate(d time.Duration, n int, pass func()) float64 {
	start := time.Now()
	ops := 0
	for time.Since(start) < d {
		pass()
		ops += n
	}
	return float64(ops) / time.Since(start).Seconds()
}

// QuestionsLatencyResult is how long `teamlead questions` takes with many
// questions stored, against `teamlead version` (a process start).
type QuestionsLatencyResult struct {
	Stored, Pending int
	P50, Max        time.Duration
	BaselineP50     time.Duration
	Listed          int
}

// MeasureQuestionsLatency stores stored questions (pending of them still
// pending) in a fresh state directory and runs `teamlead questions`
// (pending, the default) runs times with the binary teamlead, reading the
// store as the CLI does when no console runs.
func MeasureQuestionsLatency(teamlead string, stored, pending, runs int) (QuestionsLatencyResult, error) {
	res := QuestionsLatencyResult{Stored: stored, Pending: pending}
	dir, err := os.MkdirTemp("", "tlbench-questions")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	if err := fillQuestions(filepath.Join(dir, "store"), stored, pending); err != nil {
		return res, err
	}
	team := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(team, []byte("agents:\n  - name: dev\n    command: [sh]\n"), 0o600); err != nil {
		return res, err
	}
	timeRun := func(args ...string) (time.Duration, string, error) {
		cmd := exec.Command(teamlead, append(args, "--state", dir, "--config", team)...)
		cmd.Env = append(os.Environ(), "TEAMLEAD_STATE=", "TEAMLEAD_CONFIG=", "TEAMLEAD_SOCKET=")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, "", fmt.Errorf("teamlead %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return time.Since(start), string(out), nil
	}
	var took, base []time.Duration
	for i := 0; i < runs; i++ {
		d, out, err := timeRun("questions", "--format", "json")
		if err != nil {
			return res, err
		}
		took = append(took, d)
		res.Listed = strings.Count(out, "\n")
		b, _, err := timeRun("version")
		if err != nil {
			return res, err
		}
		base = append(base, b)
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	sort.Slice(base, func(i, j int) bool { return base[i] < base[j] })
	res.P50, res.Max, res.BaselineP50 = took[len(took)/2], took[len(took)-1], base[len(base)/2]
	return res, nil
}

// fillQuestions writes stored questions as the engine does (the question
// and its status index), the first pending of them pending.
func fillQuestions(dir string, stored, pending int) error {
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	t0 := time.Now().Add(-time.Hour)
	for from := 0; from < stored; from += 1000 {
		b := store.Batch{Meta: map[string]string{}}
		for i := from; i < min(from+1000, stored); i++ {
			q := questions.Question{ID: fmt.Sprintf("q-%04x", i+1), Topic: "area.db", Text: "Which index?", Asker: "dev",
				Urgency: "normal", Answerer: "agent/architect", Created: t0, AssignedAt: t0, Status: questions.Answered,
				Answer: "the btree one", AnsweredBy: "agent/architect", AnsweredAt: t0.Add(time.Minute)}
			if i < pending {
				q.Status, q.Answer, q.AnsweredBy, q.AnsweredAt = questions.Pending, "", "", time.Time{}
				q.Deadline = t0.Add(2 * time.Hour)
			}
			js, _ := json.Marshal(q)
			b.Meta[lead.QuestionKey(q.ID)] = string(js)
			b.Meta[lead.StatusPrefix(q.Status)+q.ID] = ""
		}
		if err := st.Commit(&b); err != nil {
			return err
		}
	}
	return nil
}
