package permit

// What an allowed command reads by itself, and the floor must read too
// (red team 14b, findings 1-7): the modules python -m finds first, the
// modules go fetches for go.mod, the packages ./... reaches, the
// workspaces cargo and npm build, the configuration prettier finds beside
// each file, the makefiles make includes. Each is a file of its own.
func indirectHits(pt part, cwds cwdSet, env Env) []hit {
	v := pt.view
	var hs []hit
	hs = append(hs, pyShadowHits(v, cwds, env)...)
	hs = append(hs, goFetchHits(pt, cwds, env)...)
	hs = append(hs, goDependencyHits(v, cwds, env)...)
	hs = append(hs, jsWorkspaceHits(v, cwds, env)...)
	hs = append(hs, makeIncludeHits(v, cwds, env)...)
	return hs
}
