package permit

import (
	"regexp"
	"strings"
)

// Commands that signal every process of a user, a group or a session, and
// commands that change the machine's own settings rather than files (red
// team 13b, finding 17: pkill -u root, kill -9 0, crontab -r, iptables
// -F, sysctl -w, ip link set eth0 down).

// processSamples are process names and command lines a pattern that
// matches every process matches.
var processSamples = []string{"bash", "teamlead run", "sshd: root", "/usr/lib/systemd/systemd --user", "x", "Z9", "node server.js"}

// matchesAnyProcess reports a pkill or killall -r pattern that matches
// every process (., .*, ^, "").
func matchesAnyProcess(pat string) bool {
	re, err := regexp.Compile(pat)
	if err != nil {
		return false
	}
	for _, s := range processSamples {
		if !re.MatchString(s) {
			return false
		}
	}
	return true
}

// killsMany reports kill, pkill, killall or loginctl signalling every
// process of a user, the caller's process group or a session.
func killsMany(v view) (string, bool) {
	args := v.args
	switch v.name {
	case "kill":
		for i := 0; i < len(args); i++ {
			a := args[i].Value
			switch {
			case args[i].Dynamic:
			case a == "-s" || a == "-n" || a == "--signal":
				i++
			case a == "--":
				for _, p := range args[i+1:] {
					if p.Value == "0" || strings.HasPrefix(p.Value, "-") && isPID(p.Value[1:]) {
						return "signals a whole process group (0 is the caller's, -N group N)", true
					}
				}
				return "", false
			case a == "0":
				return "signals every process of the caller's process group", true
			case i > 0 && strings.HasPrefix(a, "-") && isPID(a[1:]) && a != "-1":
				return "signals the whole process group " + a[1:], true
			}
		}
	case "pkill", "pgrep":
		if v.name == "pgrep" {
			return "", false
		}
		pattern, hasPat, negate, scope := "", false, false, ""
		for i := 0; i < len(args); i++ {
			a := args[i].Value
			switch {
			case a == "--":
				if i+1 < len(args) {
					pattern, hasPat = args[i+1].Value, true
				}
				i = len(args)
			case a == "-v" || a == "--inverse":
				negate = true
			case a == "-u" || a == "-U" || a == "-G" || a == "-g" || a == "-s" || a == "-t" || a == "--euid" || a == "--uid" ||
				a == "--group" || a == "--pgroup" || a == "--session" || a == "--terminal":
				scope = a
				i++
			case strings.HasPrefix(a, "--euid=") || strings.HasPrefix(a, "--uid=") || strings.HasPrefix(a, "--pgroup=") || strings.HasPrefix(a, "--session="):
				scope = a
			case a == "-P" || a == "--parent" || a == "-F" || a == "--pidfile" || a == "--signal" || a == "--ns" || a == "--nslist":
				i++
			case strings.HasPrefix(a, "-") && len(a) > 1:
				if strings.ContainsRune(a[1:], 'v') && !strings.HasPrefix(a, "--") {
					negate = true
				}
			case !hasPat:
				pattern, hasPat = a, true
			}
		}
		switch {
		case negate:
			return "signals every process the pattern does not match", true
		case scope != "" && (!hasPat || matchesAnyProcess(pattern)):
			return "signals every process " + scope + " selects", true
		case hasPat && !args[0].Dynamic && matchesAnyProcess(pattern):
			return "signals every process: its pattern matches them all", true
		}
	case "killall":
		for i, a := range args {
			switch {
			case a.Value == "-u" || a.Value == "--user" || strings.HasPrefix(a.Value, "--user="):
				return "signals every process of a user", true
			case (a.Value == "-r" || a.Value == "--regexp") && i+1 < len(args) && matchesAnyProcess(args[i+1].Value):
				return "signals every process: its pattern matches them all", true
			}
		}
	case "loginctl":
		for _, a := range args {
			switch a.Value {
			case "terminate-user", "kill-user", "terminate-session", "kill-session", "terminate-seat":
				return "ends every process of a user or session, the console included", true
			}
		}
	}
	return "", false
}

// isPID reports a process or group number.
func isPID(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// userAdmin are the commands that change users, groups and passwords.
var userAdmin = setOf("passwd", "chpasswd", "useradd", "userdel", "usermod", "adduser", "deluser", "addgroup", "delgroup",
	"groupadd", "groupdel", "groupmod", "gpasswd", "chsh", "chfn", "chage", "vipw", "vigr", "newusers", "pwconv", "grpconv")

// changesSystem reports a command that changes the machine's settings:
// the crontab, scheduled jobs, users, the firewall, mounts, swap, kernel
// settings and modules, network links, the host name, services.
func changesSystem(v view) (string, bool) {
	args := v.args
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	ops, _ := operands(args)
	has := func(words ...string) bool {
		for _, x := range vals {
			for _, w := range words {
				if x == w {
					return true
				}
			}
		}
		return false
	}
	onlyOpts := func(ok ...string) bool { // every word is one of ok (or a value after -u, -t)
		for i := 0; i < len(vals); i++ {
			x := vals[i]
			if x == "-u" || x == "-t" || x == "--table" {
				i++
				continue
			}
			found := false
			for _, o := range ok {
				if x == o || strings.HasPrefix(o, "-") && !strings.HasPrefix(o, "--") && len(x) > 1 && x[0] == '-' && !strings.HasPrefix(x, "--") && strings.Trim(x[1:], o[1:]) == "" {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	switch n := v.name; {
	case n == "crontab":
		if len(args) > 0 && !onlyOpts("-l", "-V", "--help") {
			return "replaces or removes the user's crontab, whose commands the system runs on a schedule", true
		}
	case n == "at" || n == "batch":
		if !onlyOpts("-l", "-V", "-c") || n == "batch" {
			return "schedules commands the system runs later, unseen", true
		}
	case userAdmin[n]:
		return "changes the machine's users, groups or passwords", true
	case n == "iptables" || n == "ip6tables" || n == "iptables-legacy" || n == "iptables-nft" || n == "ebtables" || n == "arptables" || strings.HasSuffix(n, "tables-restore"):
		if strings.HasSuffix(n, "-restore") || !onlyOpts("-L", "-S", "--list", "--list-rules", "-n", "-v", "-x", "--numeric", "--verbose", "--line-numbers", "-nvL", "-vnL") {
			return "changes the firewall's rules", true
		}
	case n == "nft":
		if len(ops) == 0 || ops[0].Value != "list" {
			return "changes the firewall's rules", true
		}
	case n == "ufw" || n == "firewall-cmd":
		for _, a := range vals {
			if !(a == "status" || a == "verbose" || a == "numbered" || a == "--state" || strings.HasPrefix(a, "--list") || strings.HasPrefix(a, "--get") || strings.HasPrefix(a, "--query") || a == "--zone" || strings.HasPrefix(a, "--zone=")) {
				return "changes the firewall's rules", true
			}
		}
	case n == "mount":
		if len(ops) > 0 || has("-a", "--all", "-o", "--bind", "--move", "-M", "-B", "--rbind", "-t") {
			return "mounts or remounts a file system", true
		}
	case n == "umount" || n == "swapoff" || n == "modprobe" || n == "insmod" || n == "rmmod" || n == "setenforce" || n == "mkswap":
		return "unmounts a file system, turns swap off, loads or removes a kernel module, or changes the security policy", true
	case n == "swapon":
		if !onlyOpts("-s", "--show", "--summary", "--noheadings", "--bytes") {
			return "turns swap on", true
		}
	case n == "sysctl":
		for _, a := range vals {
			if a == "-w" || a == "--write" || a == "-p" || a == "--load" || strings.HasPrefix(a, "--load=") || a == "--system" ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "wp") ||
				!strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
				return "changes the kernel's settings", true
			}
		}
	case n == "ip":
		for _, a := range vals {
			switch a {
			case "set", "add", "del", "delete", "flush", "replace", "change", "append", "prepend", "exec", "attach", "detach", "save", "restore":
				return "changes the machine's network links, addresses, routes or namespaces", true
			}
		}
	case n == "ifconfig" || n == "route":
		if len(ops) >= 2 || n == "route" && has("add", "del", "delete", "flush") {
			return "changes the machine's network links, addresses or routes", true
		}
	case n == "hostname":
		if len(ops) > 0 || has("-F", "--file", "-b", "--boot") {
			return "sets the machine's name", true
		}
	case n == "hostnamectl":
		for _, a := range vals {
			if strings.HasPrefix(a, "set-") || a == "hostname" && len(ops) > 1 {
				return "sets the machine's name", true
			}
		}
	case n == "systemctl" || n == "service":
		for _, a := range vals {
			switch a {
			case "stop", "kill", "disable", "mask", "isolate", "set-default", "set-property", "edit", "revert", "daemon-reexec",
				"switch-root", "exit", "link", "preset", "preset-all", "unmask", "enable", "reenable":
				return "stops, disables or changes the machine's services", true
			}
		}
	}
	return "", false
}
