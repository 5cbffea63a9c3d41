package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/questions"
)

func newValidateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate",
		Short: "Check the team file and the files it uses (answerers.yaml, consultations.yaml, permissions.yaml), reporting every error",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return validate(cmd.OutOrStdout(), g.config)
		},
	}
}

// validate checks the team file config and the files it uses, printing
// every problem with its file, line and field, then what is fine; the
// error says how many problems each file has.
func validate(out io.Writer, configFile string) error {
	team, errs := config.ReadTeam(configFile)
	if team != nil && team.Questions.Answerers != "" && !hasFile(errs, team.Questions.Answerers) {
		if _, err := os.Stat(team.Questions.Answerers); err == nil {
			if _, err := questions.LoadRoutes(team.Questions.Answerers); err != nil {
				errs = append(errs, flatten(err)...)
			}
		}
	}
	cwd, _ := os.Getwd()
	for _, err := range errs {
		fmt.Fprintln(out, shortPaths(err.Error(), cwd))
	}
	if team != nil {
		printOK(out, team, errs, cwd, configFile)
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(summary(errs, cwd))
}

// printOK says which files are fine.
func printOK(out io.Writer, team *config.Team, errs []error, cwd, configFile string) {
	ok := func(file string) bool { return !hasFile(errs, file) }
	if ok(configFile) {
		fmt.Fprintf(out, "%s: %s ok\n", shortPath(team.File, cwd), plural(len(team.Agents), "agent"))
	}
	rules := team.Consultations.Rules
	if rules == "" {
		rules = "consultations.yaml (built in)"
	}
	if ok(rules) && ok("consultations.yaml (built in)") {
		fmt.Fprintf(out, "%s: %s ok\n", shortPath(rules, cwd), plural(len(team.Consultations.Parsed.Mandatory), "mandatory consultation rule"))
	}
	policy := team.Permissions.Policy
	if ok(policy) && team.Permissions.Parsed != nil {
		if team.Permissions.Builtin {
			policy = "permissions.yaml (built in; approve-always writes " + shortPath(team.Permissions.Policy, cwd) + ")"
		} else {
			policy = shortPath(policy, cwd)
		}
		fmt.Fprintf(out, "%s: permission policy ok\n", policy)
	}
	if team.Questions.Answerers == "" {
		fmt.Fprintln(out, "no answerers.yaml: every question goes to human/requester (24h)")
		return
	}
	if !ok(team.Questions.Answerers) || hasField(errs, "questions.answerers") {
		return
	}
	if routes, err := questions.LoadRoutes(team.Questions.Answerers); err == nil {
		fmt.Fprintf(out, "%s: %s ok, in precedence order:\n%s", shortPath(team.Questions.Answerers, cwd), plural(len(routes.Routes), "route"), routes.Describe())
	}
}

// summary is the final error: how many problems, in which files.
func summary(errs []error, cwd string) string {
	var files []string
	count := map[string]int{}
	for _, err := range errs {
		f, _ := config.Where(err)
		if f == "" {
			f = "?"
		}
		if count[f] == 0 {
			files = append(files, f)
		}
		count[f]++
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%d in %s", count[f], shortPath(f, cwd))
		if f == "?" {
			parts[i] = fmt.Sprintf("%d more", count[f])
		}
	}
	if len(files) == 1 && files[0] != "?" {
		return fmt.Sprintf("%s in %s; fix %s and run teamlead validate again", plural(len(errs), "error"), shortPath(files[0], cwd), itThem(len(errs)))
	}
	return fmt.Sprintf("%s (%s); fix %s and run teamlead validate again", plural(len(errs), "error"), strings.Join(parts, ", "), itThem(len(errs)))
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// hasFile reports whether one of errs is in file.
func hasFile(errs []error, file string) bool {
	for _, err := range errs {
		if f, _ := config.Where(err); f == file {
			return true
		}
	}
	return false
}

// hasField reports whether one of errs is about field.
func hasField(errs []error, field string) bool {
	for _, err := range errs {
		var fe *config.FieldError
		if errors.As(err, &fe) && fe.Field == field {
			return true
		}
	}
	return false
}

// flatten lists the errors of an errors.Join.
func flatten(err error) []error {
	var pe *permit.PolicyError
	if j, ok := err.(interface{ Unwrap() []error }); ok && !errors.As(err, &pe) {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// shortPath is file relative to cwd when it is inside it.
func shortPath(file, cwd string) string {
	if cwd == "" || cwd == "/" || !filepath.IsAbs(file) {
		return file
	}
	if rel, err := filepath.Rel(cwd, file); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return file
}

// shortPaths shortens the paths inside cwd in a message.
func shortPaths(msg, cwd string) string {
	if cwd == "" || cwd == "/" {
		return msg
	}
	return strings.ReplaceAll(msg, cwd+string(filepath.Separator), "")
}
