package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// The team's questions are also kept in a JetStream key-value bucket, one
// key per question holding its latest state, so that a program on another
// machine reads where each question stands without replaying the stream.
// The Mirror writes it from the question records it publishes, before
// publishing them (a record published twice writes the same state again).
// A question answered, timed out or dropped stays QuestionTTL, then the
// server deletes its key (per-key TTL, nats-server 2.11 and later; on an
// older server it stays).

// QuestionTTL is how long an answered, timed-out or dropped question stays.
const QuestionTTL = 24 * time.Hour

// QuestionsBucket is the name of a team's bucket of questions.
func (n Names) QuestionsBucket() string {
	return strings.Replace(n.Stream, "TEAMLEAD_", "TEAMLEAD_Q_", 1)
}

// QuestionState is one question's latest state in the bucket.
type QuestionState struct {
	ID       string    `json:"id"`
	Status   string    `json:"status"` // pending | answered | timeout | dropped
	Topic    string    `json:"topic,omitempty"`
	Asker    string    `json:"asker,omitempty"`
	Answerer string    `json:"answerer,omitempty"`
	Urgency  string    `json:"urgency,omitempty"`
	Task     string    `json:"task,omitempty"`
	Deadline string    `json:"deadline,omitempty"`
	Last     string    `json:"last"`             // the kind of the record that said it (question, question-answer …)
	Note     string    `json:"note,omitempty"`   // what that record said (asked architect, timed out: …)
	Text     string    `json:"text,omitempty"`   // the question
	Answer   string    `json:"answer,omitempty"` // the answer, once answered
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// terminal reports a status the question does not leave.
func terminal(status string) bool {
	return status == "answered" || status == "timeout" || status == "dropped"
}

// questionsKV writes the bucket.
type questionsKV struct {
	kv  jetstream.KeyValue
	ttl bool // the server takes per-key TTLs
}

// openQuestions makes (or opens) the team's bucket.
func openQuestions(ctx context.Context, js jetstream.JetStream, n Names) (*questionsKV, error) {
	cfg := jetstream.KeyValueConfig{Bucket: n.QuestionsBucket(), Description: "teamlead: the team's questions, latest state",
		Storage: jetstream.FileStorage, LimitMarkerTTL: time.Minute}
	kv, err := js.CreateOrUpdateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrLimitMarkerTTLNotSupported) {
		cfg.LimitMarkerTTL = 0
		kv, err = js.CreateOrUpdateKeyValue(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("JetStream bucket %s: %w", cfg.Bucket, err)
		}
		return &questionsKV{kv: kv}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("JetStream bucket %s: %w", cfg.Bucket, err)
	}
	return &questionsKV{kv: kv, ttl: true}, nil
}

// apply writes the state a question record says; other records are left.
func (q *questionsKV) apply(ctx context.Context, r store.Record) error {
	if r.Type != "question" || r.MsgID == "" || !strings.HasPrefix(string(r.Kind), string(wire.KindQuestion)) {
		return nil
	}
	key := token(r.MsgID)
	var st QuestionState // what the bucket holds, updated by r
	if e, err := q.kv.Get(ctx, key); err == nil {
		_ = json.Unmarshal(e.Value(), &st)
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) && !errors.Is(err, jetstream.ErrKeyDeleted) {
		return err
	}
	st.ID, st.Status, st.Topic, st.Asker = r.MsgID, r.Fields["status"], r.Fields["topic"], r.Agent
	st.Answerer, st.Urgency, st.Task, st.Deadline = r.Fields["answerer"], r.Fields["urgency"], r.Task, r.Fields["deadline"]
	st.Last, st.Note, st.Updated = string(r.Kind), r.Body, r.Time
	switch r.Kind {
	case wire.KindQuestion:
		st.Text, st.Created = r.Body, r.Time
	case wire.KindQuestionAnswer:
		st.Answer = r.Body
	}
	if st.Status == "" {
		st.Status = "pending"
	}
	b, _ := json.Marshal(st)
	if !terminal(st.Status) || !q.ttl {
		_, err := q.kv.Put(ctx, key, b)
		return err
	}
	// A TTL is set when a key is created: the pending key goes, and the
	// final state is created anew with its TTL.
	if err := q.kv.Delete(ctx, key); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return err
	}
	if _, err := q.kv.Create(ctx, key, b, jetstream.KeyTTL(QuestionTTL)); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return err
	}
	return nil
}

// Questions reads every question the team's bucket holds, pending first,
// then the newest.
func Questions(ctx context.Context, js jetstream.JetStream, team string) ([]QuestionState, error) {
	name := NamesOf(team).QuestionsBucket()
	kv, err := js.KeyValue(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("no bucket %s on this NATS server: no console of team %q has published a question here", name, team)
	}
	if err != nil {
		return nil, fmt.Errorf("JetStream bucket %s: %w", name, err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []QuestionState
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			continue // gone since it was listed
		}
		if err != nil {
			return nil, err
		}
		// Only a question's state under its own key: anything else is
		// not the Mirror's (red team 14c, finding 3).
		var st QuestionState
		if json.Unmarshal(e.Value(), &st) == nil && st.ID != "" && token(st.ID) == k {
			out = append(out, st)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if pi, pj := out[i].Status == "pending", out[j].Status == "pending"; pi != pj {
			return pi
		}
		return out[i].Updated.After(out[j].Updated)
	})
	return out, nil
}
