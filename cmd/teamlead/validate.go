package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

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
	team, errs, warnings := config.ReadTeam(configFile)
	if team != nil && team.Questions.Answerers != "" && !hasFile(errs, team.Questions.Answerers) && !hasField(errs, "questions.answerers") {
		if routes, err := questions.LoadRoutes(team.Questions.Answerers); err != nil {
			errs = append(errs, flatten(err)...)
		} else {
			e, w := checkRoutes(team, routes)
			errs, warnings = append(errs, e...), append(warnings, w...)
		}
	}
	cwd, _ := os.Getwd()
	for _, err := range append(errs, warnings...) {
		fmt.Fprintln(out, shortPaths(err.Error(), cwd))
	}
	if team != nil {
		printOK(out, team, errs, cwd, configFile)
	}
	if len(errs) == 0 {
		if len(warnings) > 0 {
			fmt.Fprintf(out, "%s: the team can run, but check %s\n", plural(len(warnings), "warning"), itThem(len(warnings)))
		}
		return nil
	}
	msg := summary(errs, cwd)
	if len(warnings) > 0 {
		msg += fmt.Sprintf(" (and check the %s)", plural(len(warnings), "warning"))
	}
	return errors.New(msg)
}

// checkRoutes reports the answerers the team does not have: an agent/x
// with no agent x (and no agent with the route's capability), a tool/x
// with no questions.tools.x. Such a route with an escalate_to still gets
// its questions answered (they go on to it), so it is a warning; without
// one, an error. Nothing is checked when the team file could not be read.
func checkRoutes(team *config.Team, routes *questions.Routes) (errs, warnings []error) {
	if len(team.Agents) == 0 {
		return nil, nil
	}
	var root *yaml.Node
	if data, err := os.ReadFile(routes.File); err == nil {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
			root = doc.Content[0]
		}
	}
	agents, caps := map[string]bool{}, map[string]bool{}
	var names []string
	for _, a := range team.Agents {
		agents[a.Name] = true
		names = append(names, a.Name)
		for _, c := range a.Capabilities {
			caps[c] = true
		}
	}
	tools := make([]string, 0, len(team.Questions.Tools))
	for name := range team.Questions.Tools {
		tools = append(tools, name)
	}
	sort.Strings(tools)
	haveTools := "the team file has none"
	if len(tools) > 0 {
		haveTools = "the team file has " + strings.Join(tools, ", ")
	}
	// missing says what is wrong with answerer a, or "".
	missing := func(a questions.Answerer, capability string) (what, fix string) {
		switch {
		case a.Kind == questions.KindAgent && !agents[a.Name] && capability == "":
			return fmt.Sprintf("no agent named %q in the team file", a.Name),
				fmt.Sprintf("name one of its agents (%s), or a person (human/<name>)", strings.Join(names, ", "))
		case a.Kind == questions.KindAgent && !agents[a.Name] && !caps[capability]:
			return fmt.Sprintf("no agent named %q in the team file, and no agent lists the capability %q", a.Name, capability),
				fmt.Sprintf("name one of its agents (%s), or add %s under an agent's capabilities:", strings.Join(names, ", "), capability)
		case a.Kind == questions.KindTool && team.Questions.Tools[a.Name].Command == nil:
			return fmt.Sprintf("no tool %q under questions.tools (%s)", a.Name, haveTools),
				fmt.Sprintf("add it there with its command, e.g. questions: {tools: {%s: {command: [./answer.sh]}}}", a.Name)
		}
		return "", ""
	}
	var routeNodes []*yaml.Node
	if rn := config.Child(root, "routes"); rn != nil && rn.Kind == yaml.SequenceNode {
		routeNodes = rn.Content
	}
	each := func(n *yaml.Node, field string, rt questions.Route) {
		if what, fix := missing(rt.Answerer, rt.Capability); what != "" {
			fe := config.FieldError{File: routes.File, Line: lineOf(n, "answerer"), Field: field + ".answerer"}
			switch {
			case rt.EscalateTo == nil:
				fe.Msg = what + ", so its questions are never answered; " + fix
				errs = append(errs, &fe)
			case rt.Answerer.Kind == questions.KindTool:
				fe.Msg = fmt.Sprintf("%s, so its questions wait out the sla and then go on to %s; %s", what, rt.EscalateTo, fix)
				warnings = append(warnings, &config.Warning{FieldError: fe})
			default:
				fe.Msg = fmt.Sprintf("%s, so its questions go straight on to %s; %s", what, rt.EscalateTo, fix)
				warnings = append(warnings, &config.Warning{FieldError: fe})
			}
		}
		if rt.EscalateTo != nil {
			if what, fix := missing(*rt.EscalateTo, ""); what != "" {
				errs = append(errs, &config.FieldError{File: routes.File, Line: lineOf(n, "escalate_to"), Field: field + ".escalate_to",
					Msg: what + "; " + fix})
			}
		}
	}
	for i, rt := range routes.Routes {
		var n *yaml.Node
		if i < len(routeNodes) {
			n = routeNodes[i]
		}
		each(n, fmt.Sprintf("routes[%d]", i), rt)
	}
	if dn := config.Child(root, "default"); dn != nil {
		each(dn, "default", routes.Default)
	}
	return errs, warnings
}

// lineOf is the line of key in mapping n, else of n, else 1.
func lineOf(n *yaml.Node, key string) int {
	if n == nil {
		return 1
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Line
		}
	}
	return n.Line
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
