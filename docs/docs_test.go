// Package docs_test checks that the documentation stays true to the code:
// the package map lists every package, every relative link resolves, every
// registered benchmark has its page, and no page points at files a user
// does not have.
package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/all"
)

const module = "github.com/clinevo/clinevo"

// pages are README.md and every Markdown file under docs/, relative to the
// repository root.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md"}
	require.NoError(t, filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, filepath.Join("docs", p))
		}
		return nil
	}))
	return out
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", rel))
	require.NoError(t, err)
	return string(b)
}

// TestArchitectureListsEveryPackage compares the package table of
// docs/architecture.md with `go list ./...`: a package added without a row,
// or a row of a package that is gone, fails.
func TestArchitectureListsEveryPackage(t *testing.T) {
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	require.NoError(t, err, "go list ./...")
	var want []string
	for _, p := range strings.Fields(string(out)) {
		want = append(want, strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\|")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(read(t, "docs/architecture.md"), -1) {
		listed = append(listed, m[1])
	}
	sort.Strings(want)
	sort.Strings(listed)
	require.Equal(t, want, listed, "docs/architecture.md lists exactly the packages of go list ./...")
}

// TestLinksResolve follows every relative link of README.md and docs/: each
// names a file or directory of the repository.
func TestLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	n := 0
	for _, page := range pages(t) {
		for _, m := range link.FindAllStringSubmatch(read(t, page), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			path := filepath.Join("..", filepath.Dir(page), target)
			if filepath.Clean(path) == filepath.Join("..", "docs", "cli") {
				// The command reference is generated into docs/cli by the
				// cmd/clinevo test that keeps it current; until a tree has
				// it, the link cannot be followed.
				if _, err := os.Stat(path); os.IsNotExist(err) {
					t.Logf("%s links to %s, which is not generated in this tree yet", page, target)
					continue
				}
			}
			_, err := os.Stat(path)
			require.NoError(t, err, "%s links to %s", page, target)
		}
	}
	require.Greater(t, n, 20, "the pages link to each other")
}

// upward matches a relative path into a folder above the page's (a bare
// "../../etc", as a refused run ID in a table, names no folder).
var upward = regexp.MustCompile(`(?:\.\./)+[A-Za-z0-9_-][A-Za-z0-9_.-]*/[A-Za-z0-9_./-]*`)

// TestNoPageNamesFilesUsersLack checks that no page points outside the
// repository (the papers are cited by title, authors and year instead).
func TestNoPageNamesFilesUsersLack(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	for _, page := range pages(t) {
		text := read(t, page)
		for _, ref := range upward.FindAllString(text, -1) {
			rel, err := filepath.Rel(root, filepath.Join(root, filepath.Dir(page), ref))
			require.NoError(t, err)
			require.False(t, rel == ".." || strings.HasPrefix(rel, "../"), "%s names %s, outside the repository", page, ref)
		}
		require.NotContains(t, text, "/work/", page)
	}
}

// TestEveryBenchmarkHasAPage checks docs/benchmarks/NAME.md for every
// benchmark of the build, citing its paper with a year.
func TestEveryBenchmarkHasAPage(t *testing.T) {
	set, err := all.Set()
	require.NoError(t, err)
	names := set.Names()
	require.NotEmpty(t, names)
	year := regexp.MustCompile(`The paper: .*\b20\d\d\b`)
	for _, name := range names {
		page := "docs/benchmarks/" + name + ".md"
		require.Regexp(t, year, read(t, page), "%s cites its paper with its year", page)
		require.Contains(t, read(t, "README.md"), "benchmarks/"+name+".md", "the README links %s", page)
	}
}

// TestReadmeInstallsAndRuns checks the README's first steps: the install
// line, where go install puts the binary, and the two commands.
func TestReadmeInstallsAndRuns(t *testing.T) {
	readme := read(t, "README.md")
	for _, want := range []string{"go install ./cmd/clinevo", "$(go env GOPATH)/bin", "clinevo demo", "go test ./..."} {
		require.Contains(t, readme, want)
	}
	install := strings.Index(readme, "go install ./cmd/clinevo")
	own := strings.Index(readme, "## Run your own model")
	require.Positive(t, own, "a section on running your own model")
	require.Less(t, install, own, "install comes first")
	require.Less(t, strings.Count(readme, "\n"), 200, "the README stays short: reference goes under docs/")
}
