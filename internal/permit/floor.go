package permit

// FloorEntry is one kind of action no rule can approve: at best the human
// is asked, and a deny rule still denies it.
type FloorEntry struct {
	// ID names the entry in decisions and in the audit trail.
	ID string
	// Risk is the entry's risk level.
	Risk Risk
	// Reason is why it is on the floor, shown to the human.
	Reason string
}

// The floor's entry ids (their reasons are in Floor).
const (
	// FloorDeleteRecursiveOutside is rm -r, find -delete or rsync --delete reaching outside the workdir.
	FloorDeleteRecursiveOutside = "delete-recursive-outside"
	// FloorDeleteOutside is rm, shred or mv of a file outside the workdir.
	FloorDeleteOutside = "delete-outside"
	// FloorPrivilege is sudo, doas, su, pkexec, run0.
	FloorPrivilege = "privilege"
	// FloorDiskTools is dd to a device, mkfs, fdisk, parted, wipefs and the like.
	FloorDiskTools = "disk-tools"
	// FloorChmodOutside is chmod, chown, chgrp outside the workdir.
	FloorChmodOutside = "chmod-outside"
	// FloorGitForcePush is git push --force, -f, --force-with-lease, +refspec, --mirror.
	FloorGitForcePush = "git-force-push"
	// FloorGitPushDelete is git push --delete, :branch, --prune.
	FloorGitPushDelete = "git-push-delete"
	// FloorGitDiscard is git reset --hard, clean -f, checkout/switch --force, checkout/restore of the whole tree, stash clear, rm -rf *.
	FloorGitDiscard = "git-discard"
	// FloorCredentialExfil is a credential file named in a command that uses the network.
	FloorCredentialExfil = "credential-exfil"
	// FloorCredentialRead is a credential file read (Read, cat, cp...).
	FloorCredentialRead = "credential-read"
	// FloorPipeToShell is code from the network run by a shell or interpreter.
	FloorPipeToShell = "pipe-to-shell"
	// FloorForkBomb is a fork bomb.
	FloorForkBomb = "fork-bomb"
	// FloorPower is shutdown, reboot, halt, poweroff.
	FloorPower = "power"
	// FloorWriteSystem is a write into /etc, /dev, /usr, /boot and other system locations, or a change of the system's settings (crontab, users, firewall, mounts, sysctl, ip link).
	FloorWriteSystem = "write-system"
	// FloorWriteOutside is a shell write (redirection, tee, cp, curl -o...) outside the workdir.
	FloorWriteOutside = "write-outside"
	// FloorEditOutside is Edit, Write, MultiEdit or NotebookEdit outside the workdir.
	FloorEditOutside = "edit-outside"
	// FloorEditCredentials is Edit or Write of a credential file.
	FloorEditCredentials = "edit-credentials"
	// FloorKillAll is kill -1, kill 0, pkill -u, pkill -f ., loginctl terminate-user: every process of a user or group.
	FloorKillAll = "kill-all"
	// FloorDynamicCommand is a command whose name or program is only known when it runs.
	FloorDynamicCommand = "dynamic-command"
	// FloorUnparsable is shell text that cannot be split for sure.
	FloorUnparsable = "unparsable"
)

// Floor returns the built-in destructive floor, in the order it is listed.
func Floor() []FloorEntry {
	return []FloorEntry{
		{FloorDeleteRecursiveOutside, Critical, "a recursive delete reaches outside the working directory, or takes it whole (rm -rf /, rm -rf ~, rm -r .., find / -delete): nothing brings it back, and no task of an agent needs it"},
		{FloorDeleteOutside, High, "deletes or moves away a file outside the working directory"},
		{FloorPrivilege, Critical, "runs a command as root or another user (sudo, doas, su, pkexec): it can change anything on the machine"},
		{FloorDiskTools, Critical, "writes to a disk or its partition table (dd to a device, mkfs, fdisk, parted, wipefs...): whole file systems are lost"},
		{FloorChmodOutside, Critical, "changes permissions or owners outside the working directory (chmod -R 777 /): it can open the machine to every user or lock its owner out"},
		{FloorGitForcePush, Critical, "a force push rewrites a shared branch and can drop other people's commits; git push --force-with-lease is on the floor too, since the lease only protects what the agent last fetched"},
		{FloorGitPushDelete, High, "deletes a branch or tag on the remote"},
		{FloorGitDiscard, High, "discards uncommitted work (git reset --hard, git clean -f, checkout or switch --force, and rm -rf * or find . -delete, which delete every file of the working directory as git clean does and leave only what .git holds): in a checkout several agents share it erases the others' edits, and neither git nor anything else can bring uncommitted changes back"},
		{FloorCredentialExfil, Critical, "sends a credential (SSH keys, cloud credentials, .env, tokens) off the machine"},
		{FloorCredentialRead, High, "reads a credential (SSH keys, cloud credentials, .env, tokens): its content would reach the model's provider and the agent's log"},
		{FloorPipeToShell, Critical, "runs code fetched from the network that nobody has read (curl … | sh, bash <(curl …), eval \"$(wget -O- …)\")"},
		{FloorForkBomb, Critical, "a fork bomb: it exhausts the machine's processes until it is rebooted"},
		{FloorPower, Critical, "shuts down, reboots or halts the machine"},
		{FloorWriteSystem, Critical, "writes into a system location (/etc, /dev, /usr, /boot...) or changes the system's own settings (crontab, at, users and passwords, firewall rules, mounts, swap, kernel settings and modules, network links, services): it changes the machine, not the project"},
		{FloorWriteOutside, High, "writes a file outside the working directory"},
		{FloorEditOutside, High, "edits a file outside the working directory"},
		{FloorEditCredentials, Critical, "changes a credential file (.env, ~/.ssh, ~/.aws, keys): secrets and logins are not the agent's to change"},
		{FloorKillAll, High, "signals every process of the user, a process group or a session (kill -1, kill 0, pkill -u USER, pkill -f ., killall -u, loginctl terminate-user), the console included"},
		{FloorDynamicCommand, High, "what runs is only known when it runs ($cmd, $(…) as the command, eval of a variable, a shell reading commands from a pipe): the floor cannot see what it would do"},
		{FloorUnparsable, High, "the shell text cannot be split into commands for sure, so no part of it can be approved unseen"},
		{FloorProtectedFile, High, "writes a file that runs code or steers a tool (git's config and hooks in any letter case, the agent CLIs' settings, teamlead's own files, CI workflows, direnv, husky, editor tasks): the write is treated as the Edit of that file and asked"},
		{FloorURLData, High, "the address can carry data off the machine (a query string, a user or token, a long or encoded path or host label, a port, an IP, plain http, or a git remote on an unknown host): the agent could be sending what it has read"},
		{FloorLookAlike, High, "the text holds characters that look like others or hide (a Cyrillic or full-width letter in a command name, a dash that is not -, zero-width, bidirectional or control characters): what runs is not what the human reads"},
		{FloorCodeExec, High, "an option or variable names a program, script, plugin, configuration or makefile for the command to run (go test -exec, make --eval, pytest -p, git -c core.pager=, LD_PRELOAD=...): what runs is not what the command line shows"},
	}
}

// floorEntry returns the entry with the id.
func floorEntry(id string) FloorEntry {
	for _, e := range Floor() {
		if e.ID == id {
			return e
		}
	}
	return FloorEntry{ID: id, Risk: High, Reason: id}
}

// hit is one floor entry an action runs into, with what exactly.
type hit struct {
	id     string
	detail string
	risk   Risk // overrides the entry's risk when set
}

func (h hit) level() Risk {
	if h.risk != 0 {
		return h.risk
	}
	return floorEntry(h.id).Risk
}
