package docs_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// citation is a `go test ... -bench PATTERN` command a page quotes.
type citation struct {
	page, pkg, pattern string
}

// goTest matches a quoted go test command; a command may wrap onto the next
// line of the page (docs/models.md).
var goTest = regexp.MustCompile("`(go test [^`]+)`")

// citations returns every -bench pattern quoted in the pages, with the
// package its command names ("" when it names none).
func citations(pages map[string]string) []citation {
	var out []citation
	for page, text := range pages {
		for _, m := range goTest.FindAllStringSubmatch(text, -1) {
			c := citation{page: page}
			f := strings.Fields(m[1])
			for i, arg := range f {
				arg = strings.Trim(arg, `'"`)
				switch {
				case strings.HasPrefix(arg, "./") && c.pkg == "":
					c.pkg = strings.TrimSuffix(arg, "/...")
				case arg == "-bench" && i+1 < len(f):
					c.pattern = strings.Trim(f[i+1], `'"`)
				case strings.HasPrefix(arg, "-bench="):
					c.pattern = strings.TrimPrefix(arg, "-bench=")
				}
			}
			if c.pattern != "" {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].page+out[i].pattern < out[j].page+out[j].pattern })
	return out
}

// testFuncs returns the names of the functions named prefix... (Benchmark,
// Test) declared in the _test.go files of the directory dir, parsed with
// go/parser.
func testFuncs(t *testing.T, dir, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err, "parse %s", f)
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, prefix) {
				out = append(out, fn.Name.Name)
			}
		}
	}
	return out
}

// packageDirs returns every directory of the module under root that holds Go
// files: where a command that names no package may find its benchmark.
func packageDirs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			out = append(out, p)
		}
		return nil
	}))
	return out
}

// unmatched returns, for every citation whose pattern names no Benchmark
// function of its package (of the module when it names none), what is wrong.
// As go test does, the pattern's first element (up to a "/") is matched
// against the function's name.
func unmatched(t *testing.T, root string, cites []citation) []string {
	t.Helper()
	var out []string
	for _, c := range cites {
		dirs := []string{filepath.Join(root, c.pkg)}
		if c.pkg == "" {
			dirs = packageDirs(t, root)
		}
		top := strings.SplitN(c.pattern, "/", 2)[0]
		re, err := regexp.Compile(top)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: -bench %q is no regular expression: %v", c.page, c.pattern, err))
			continue
		}
		found := false
		for _, dir := range dirs {
			for _, name := range testFuncs(t, dir, "Benchmark") {
				found = found || re.MatchString(name)
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s: -bench %q matches no Benchmark function in %s", c.page, c.pattern, or(c.pkg, "the module")))
		}
	}
	return out
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func readPages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range pages(t) {
		out[p] = read(t, p)
	}
	return out
}

// TestCitedBenchmarksExist (issue 40): every -bench pattern a page of docs/ or
// README.md quotes matches a Benchmark function of the package its command
// names; a renamed or deleted benchmark fails here instead of leaving a figure
// nobody can reproduce. The probes check that the check can fail.
func TestCitedBenchmarksExist(t *testing.T) {
	for _, c := range []struct {
		name, page string
		problems   int
	}{
		{"an existing benchmark", "`go test ./runner -bench Episode -benchtime 1x`", 0},
		{"a pattern of the full name", "`go test ./llm -run XXX -bench BenchmarkRateLimitedStream`", 0},
		{"a command wrapped onto the next line", "`go test ./engine -run XXX -bench\nBenchmarkRateLimitedTemporalStream -benchtime 1x`", 0},
		{"a sub-benchmark", "`go test ./memory/local -bench 'Search/cards-1000'`", 0},
		{"a bogus pattern", "`go test ./runner -bench NoSuchBenchmark -benchtime 1x`", 1},
		{"a benchmark of another package", "`go test ./runner -bench Overhead`", 1},
		{"no package: the module", "`go test -bench GPShape`", 0},
		{"no package, nothing matches", "`go test -bench NoSuchBenchmark`", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cites := citations(map[string]string{"probe.md": c.page})
			require.Len(t, cites, 1)
			require.Len(t, unmatched(t, "..", cites), c.problems)
		})
	}
	cites := citations(readPages(t))
	require.GreaterOrEqual(t, len(cites), 10, "the pages cite the benchmarks of docs/performance.md and more")
	require.Empty(t, unmatched(t, "..", cites))
}

// ciBench matches .ci/run's step that runs the cited benchmarks once at their
// smallest size (internal/benchsize): every benchmark of the packages it
// lists.
var ciBench = regexp.MustCompile(`(?m)^CLINEVO_BENCH_SMALL=1 go test -count=1 -run '\^\$' -bench \. -benchtime 1x((?: \./[a-z0-9/]+)+)\s*$`)

// TestCitedBenchmarksRunInCI: the package of every cited benchmark is one
// that .ci/run's benchmark step runs, so a cited benchmark that no longer
// runs fails CI.
func TestCitedBenchmarksRunInCI(t *testing.T) {
	m := ciBench.FindStringSubmatch(read(t, ".ci/run"))
	require.NotNil(t, m, ".ci/run runs the cited benchmarks: %s", ciBench)
	run := map[string]bool{}
	for _, p := range strings.Fields(m[1]) {
		run[p] = true
	}
	for _, c := range citations(readPages(t)) {
		require.NotEmpty(t, c.pkg, "%s: -bench %q names no package", c.page, c.pattern)
		require.True(t, run[c.pkg], "%s cites -bench %q in %s, which .ci/run's benchmark step does not run", c.page, c.pattern, c.pkg)
	}
}
