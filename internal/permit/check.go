package permit

import (
	"net/url"
	"strings"
)

// Check decides an action written as Tool or Tool(argument) for an agent
// working in env: the agent's rules, then the defaults, then the default
// decision, under the destructive floor. An action that cannot be read is
// asked.
func (p *Policy) Check(action, agent string, env Env) Decision {
	a, err := ParseAction(action)
	if err != nil {
		d := p.decision(action, nil, nil)
		if d.Decide == Allow {
			d.Decide = Ask
		}
		d.Why = "cannot read the action (" + err.Error() + "); " + d.Why
		return d
	}
	return p.CheckAction(a, agent, env)
}

// CheckAction decides a parsed action; see Check.
func (p *Policy) CheckAction(a Action, agent string, env Env) Decision {
	env = env.clean()
	switch {
	case a.Tool == "Bash" && strings.TrimSpace(a.Arg) == "":
		hits := []hit{{id: FloorDynamicCommand, detail: "no command given"}}
		return p.decision(a.String(), p.first(subject{tool: "Bash", hasArg: a.HasArg, env: env}, false, agent), hits)
	case a.Tool == "Bash":
		return p.checkBash(a, agent, env)
	case isPathTool(a.Tool):
		return p.checkPath(a, agent, env)
	}
	s := subject{tool: a.Tool, hasArg: a.HasArg, arg: a.Arg, env: env}
	var hits []hit
	if a.Tool == "WebFetch" {
		s.host = urlHost(a.Arg)
		if why, ok := urlData(a.Arg); ok && a.HasArg {
			hits = append(hits, hit{id: FloorURLData, detail: why})
		}
		if h := s.host; a.HasArg && (strings.Contains(h, "xn--") || strings.IndexFunc(h, func(r rune) bool { return r > 0x7e }) >= 0) {
			// gо.dev with a Cyrillic о, or its punycode: not the host it looks like
			hits = append(hits, hit{id: FloorLookAlike, detail: "the host " + h + " is written with letters other than ASCII (or their punycode, xn--): it can look like another"})
		}
	}
	return p.decision(a.String(), p.first(s, true, agent), hits)
}

// checkPath decides Read, Edit, Write and the other file tools.
func (p *Policy) checkPath(a Action, agent string, env Env) Decision {
	s := subject{tool: a.Tool, hasArg: a.HasArg, arg: a.Arg, env: env}
	arg := strings.TrimSpace(a.Arg)
	known := true
	switch {
	case arg == "" && readTools[a.Tool]:
		s.abs, known = env.Cwd, env.Cwd != ""
	case arg == "":
		known = false
	default:
		s.abs, known = env.resolvePath(arg)
	}
	inside := known && env.inside(s.abs)
	var hits []hit
	shown := arg
	if known && s.abs != arg {
		shown = arg + " (" + s.abs + ")"
	}
	if editTools[a.Tool] {
		switch {
		case !known:
			hits = append(hits, hit{id: FloorEditOutside, detail: a.Tool + " of a path not known here"})
		case !env.strictlyInside(s.abs) && isSystemPath(s.abs):
			hits = append(hits, hit{id: FloorWriteSystem, detail: a.Tool + " of " + shown})
		case !env.strictlyInside(s.abs):
			hits = append(hits, hit{id: FloorEditOutside, detail: a.Tool + " of " + shown})
		}
		if isCredential(s.abs) || isCredential(arg) {
			hits = append(hits, hit{id: FloorEditCredentials, detail: a.Tool + " of " + shown})
		} else if why, secret := env.editSecret(s.abs); known && secret {
			hits = append(hits, hit{id: FloorEditCredentials, detail: a.Tool + " of " + shown + why})
		}
		if known {
			hits = append(hits, env.protectedHit(s.abs, a.Tool)...)
			hits = append(hits, env.hardLinkHit(s.abs, a.Tool)...)
			if env.strictlyInside(s.abs) {
				hits = append(hits, env.dependencyHit(s.abs, a.Tool)...)
			}
		}
	} else if why, secret := env.readSecret(s.abs); known && secret || isCredential(arg) {
		hits = append(hits, hit{id: FloorCredentialRead, detail: a.Tool + " of " + shown + why})
	} else if a.Tool == "Grep" && known {
		if f, ok := treeCredentials(env, s.abs, true); ok {
			hits = append(hits, hit{id: FloorCredentialRead, detail: "Grep reads every file under " + shown + ", " + f + " among them"})
		}
	}
	return p.decision(a.String(), p.first(s, inside, agent), hits)
}

// urlHost returns the lower-cased host of a URL (scheme optional), without port.
func urlHost(raw string) string {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}
