// Package worktree gives each agent its own linked git worktree: a folder
// on its own branch, created from the user's checkout, that survives a
// restart and is never touched once the agent works in it.
//
// It drives the git binary rather than go-git: go-git v5 can neither create
// linked worktrees nor read a linked worktree's own index and HEAD
// correctly, and the git binary is what the user's own tools see (their
// config, their hooks' absence, their LFS filters).
//
// # Programs a repository can make git run
//
// An agent controls everything inside its worktree, .gitattributes and the
// .git file included, and can usually write the shared git dir (it must, to
// commit). So every invocation passes -c core.fsmonitor=false,
// -c core.hooksPath=/dev/null and -c diff.external=, every diff passes
// --no-ext-diff --no-textconv, and the commands that only read an agent's
// worktree (Status, Diff, Remove's check) name its git dir explicitly
// (--git-dir/--work-tree: a rewritten .git file is not followed) and switch
// off every filter driver found in the config (clean, smudge, process).
// Those reads also ignore dirty submodule contents, so git never recurses
// into a submodule whose own config was not checked.
//
// What still runs configured programs, by choice: Ensure's checkout
// (git worktree add, git submodule update) and its dirty check of the
// user's checkout keep the clean/smudge filters, because switching them off
// would check LFS files out as pointer files and report them all modified.
// Those filters come from the user's config, as in their own git checkout.
// Submodule update runs with the default protocol settings (local
// submodules must work) and --checkout, which ignores a configured
// "submodule.<name>.update = !command".
//
// Needs git 2.36 or newer (worktree list -z).
package worktree
