package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
)

func newAskCmd(g *globals) *cobra.Command {
	var a questions.Ask
	cmd := &cobra.Command{
		Use:   "ask TOPIC QUESTION...",
		Short: "Ask a question, routed by topic (answerers.yaml) to an agent, a person, a team or a tool",
		Long: "Ask routes QUESTION by TOPIC (dot-separated, e.g. architecture.auth) and prints its id.\n" +
			"Run from an agent's shell (TEAMLEAD_SOCKET is set there), the console knows which agent asks\n" +
			"and sends it the answer; run by you, the answer shows in the console and in `teamlead questions`.",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.Topic, a.Text = args[0], strings.Join(args[1:], " ")
			c, err := g.running()
			if err != nil {
				return err
			}
			q, err := c.Ask(a)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s routed to %s\n", q.ID, q.Answerer)
			return nil
		},
	}
	cmd.Flags().StringVar(&a.Context, "context", "", "more context for the answerer")
	cmd.Flags().StringVar(&a.Urgency, "urgency", "normal", "low, normal, high or blocking")
	cmd.Flags().StringVar(&a.Task, "task", "", "the task it is about")
	return cmd
}

func newQuestionsCmd(g *globals) *cobra.Command {
	var format *formatFlag
	var natsFlag, teamFlag string
	cmd := &cobra.Command{
		Use:   "questions [pending|answered|timeout|dropped|all|ID]",
		Short: "List questions (pending by default), or show one",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := format.check(); err != nil {
				return err
			}
			status, id := "pending", ""
			if len(args) == 1 {
				if qid, ok := questions.ParseID(args[0]); ok {
					id = qid
				} else {
					status = args[0]
				}
			}
			var qs []questions.Question
			var err error
			if natsFlag != "" || os.Getenv("TEAMLEAD_NATS") != "" {
				qs, err = questionsNATS(cmd.Context(), g, natsFlag, teamFlag, status, id)
			} else {
				qs, err = listQuestions(g, status, id)
			}
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			return printList(w, format, qs, nil, func() error {
				if id != "" && len(qs) == 1 {
					return printQuestion(w, qs[0])
				}
				return printQuestions(w, qs, time.Now())
			})
		},
	}
	format = addFormat(cmd)
	cmd.Flags().StringVar(&natsFlag, "nats", "", "read the team's questions from this NATS server's bucket (where its console keeps them), e.g. on another machine (env TEAMLEAD_NATS)")
	cmd.Flags().StringVar(&teamFlag, "team", "", "with --nats: the team's name on NATS (default: the team file's bus.name)")
	return cmd
}

// listQuestions asks the running console, or reads the store.
func listQuestions(g *globals, status, id string) ([]questions.Question, error) {
	if c, err := g.client(); err == nil {
		return c.Questions(status, id)
	} else if !errors.Is(err, control.ErrNoConsole) {
		return nil, err
	}
	st, err := openReadOnly(g)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return readmodel.ListQuestions(st, status, id)
}

func printQuestions(w io.Writer, qs []questions.Question, now time.Time) error {
	if len(qs) == 0 {
		_, err := fmt.Fprintln(w, "no questions")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tURGENCY\tTOPIC\tASKER\tANSWERER\tAGE\tLEFT\tQUESTION")
	for _, q := range qs {
		left := "-"
		if q.Status == questions.Pending && !q.Deadline.IsZero() {
			left = report.Age(max(q.Deadline.Sub(now), 0))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.Cells(q.ID, q.Status, q.Urgency, q.Topic, q.Asker, q.Answerer,
			report.Age(now.Sub(q.Created)), left, strings.Join(strings.Fields(q.Text), " "))...)
	}
	return tw.Flush()
}

func printQuestion(w io.Writer, q questions.Question) error {
	fmt.Fprintf(w, "%s  %s  (%s, urgency %s)\nasked by %s at %s%s\n\n%s\n", q.ID, q.Status, q.Topic, q.Urgency, q.Asker,
		q.Created.Local().Format("2006-01-02 15:04:05"), taskSuffix(q.Task), q.Text)
	if q.Context != "" {
		fmt.Fprintf(w, "context: %s\n", q.Context)
	}
	fmt.Fprintln(w, "\nassignments:")
	for _, h := range q.Hops {
		fmt.Fprintf(w, "  %s  %s  (%s)\n", h.At.Local().Format("2006-01-02 15:04:05"), h.To, h.Why)
	}
	if q.Status == questions.Pending && !q.Deadline.IsZero() {
		fmt.Fprintf(w, "deadline: %s\n", q.Deadline.Local().Format("2006-01-02 15:04:05"))
	}
	if q.Status == questions.Answered {
		fmt.Fprintf(w, "\nanswered by %s at %s:\n%s\n", q.AnsweredBy, q.AnsweredAt.Local().Format("2006-01-02 15:04:05"), q.Answer)
	}
	return nil
}

func taskSuffix(task string) string {
	if task == "" {
		return ""
	}
	return ", task " + task
}
