package workflows_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLinksNoImplementation: workflows is orchestration only. It calls the
// activities by name (package acts), so it links neither their
// implementation nor what that links: a model client, the OpenTelemetry SDK.
// The import graph is go list's (`go test` puts its own go first on PATH).
func TestLinksNoImplementation(t *testing.T) {
	forbidden := func(pkg string) bool {
		return pkg == "github.com/clinevo/clinevo/activities" ||
			under(pkg, "github.com/sashabaranov/go-openai") || under(pkg, "go.opentelemetry.io/otel/sdk")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	require.NoError(t, err, "go list -deps: %s", stderr(err))
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	const self = "github.com/clinevo/clinevo/workflows"
	require.Contains(t, imports, self)
	for _, chain := range chains(self, imports, forbidden) {
		t.Errorf("workflows links %s: %s", chain[len(chain)-1], strings.Join(chain, " -> "))
	}
}

// under reports whether pkg is path or a package below it.
func under(pkg, path string) bool { return pkg == path || strings.HasPrefix(pkg, path+"/") }

// chains returns, for every package bad reports in the import graph below
// from, the shortest chain of imports that reaches it.
func chains(from string, imports map[string][]string, bad func(string) bool) [][]string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	var out [][]string
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if bad(pkg) {
			chain := []string{pkg}
			for p := parent[pkg]; p != ""; p = parent[p] {
				chain = append([]string{p}, chain...)
			}
			out = append(out, chain)
			continue
		}
		for _, imp := range imports[pkg] {
			if _, seen := parent[imp]; !seen {
				parent[imp] = pkg
				queue = append(queue, imp)
			}
		}
	}
	return out
}

// stderr is what the go command said when it failed.
func stderr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
