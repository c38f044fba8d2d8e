package bench_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// module is the module path every package of the repository starts with.
const module = "github.com/clinevo/clinevo/"

// wiring are the packages that may hold the build's benchmarks: the engine,
// which builds the set, its test harness, and the CLI.
var wiring = []string{"engine", "engine/enginetest", "cmd/clinevo"}

// isImpl reports whether a package is a benchmark implementation (or a part
// of one, or their list).
func isImpl(pkg string) bool { return strings.HasPrefix(pkg, "benchmarks/") }

// repoPackages parses the non-test Go files of the repository: each package's
// imports within the module, and its files.
func repoPackages(t *testing.T) (map[string][]string, map[string][]*ast.File) {
	t.Helper()
	imports, files := map[string][]string{}, map[string][]*ast.File{}
	fset := token.NewFileSet()
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		files[pkg] = append(files[pkg], f)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value) // the parser checked the literal
			if after, ok := strings.CutPrefix(p, module); ok && !slices.Contains(imports[pkg], after) {
				imports[pkg] = append(imports[pkg], after)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return imports, files
}

// reaches is the benchmark implementation pkg reaches through its imports,
// with the path to it; "" when none.
func reaches(imports map[string][]string, pkg string) []string {
	seen := map[string]bool{pkg: true}
	var walk func(p string, path []string) []string
	walk = func(p string, path []string) []string {
		for _, im := range imports[p] {
			if seen[im] {
				continue
			}
			seen[im] = true
			if isImpl(im) {
				return append(path, im)
			}
			if found := walk(im, append(path, im)); found != nil {
				return found
			}
		}
		return nil
	}
	return walk(pkg, []string{pkg})
}

// TestStructure checks the shape ARCHITECTURE.md gives the benchmarks
// ("Profiles"): the contract sits low and the implementations just under
// the wiring. It fails when
//   - a package outside the wiring (engine, its test harness, cmd) and
//     outside benchmarks/ imports a benchmark implementation, directly or
//     through a package that imports one;
//   - a package outside the engine keeps the build's benchmarks in a
//     package-level variable (a registry by another name: a lookup that
//     needs nothing handed down);
//   - the contract declares package-level state, or a TestMain anywhere
//     sets benchmarks up (a test gets the benchmark it plays as a value).
//
// Tests may import a benchmark as a fixture: only the packages' own code is
// held to the layers.
func TestStructure(t *testing.T) {
	imports, files := repoPackages(t)
	require.Contains(t, imports, "engine", "the walk found the module's packages")
	var pkgs []string
	for p := range files {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if isImpl(p) || slices.Contains(wiring, p) {
			continue
		}
		if path := reaches(imports, p); path != nil {
			t.Errorf("%s reaches benchmark implementation %s (%s): a generic package takes the benchmark as a value (bench.Benchmark, bench.Set)",
				p, path[len(path)-1], strings.Join(path, " -> "))
		}
	}
	for _, p := range pkgs {
		for _, f := range files[p] {
			for _, name := range setVars(f) {
				if p != "engine" {
					t.Errorf("%s: package-level variable %s holds benchmarks: only the engine builds the set, and hands it down", p, name)
				}
			}
			if p == "bench" {
				for _, name := range packageVars(f) {
					t.Errorf("bench: package-level variable %s: the contract holds no state (no registry)", name)
				}
			}
		}
	}
	requireNoBenchmarkTestMain(t)
}

// setVars are the package-level variables of f that hold benchmarks: of type
// bench.Set, or made by bench.NewSet, all.Set or all.Benchmarks.
func setVars(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			holds := isSelector(vs.Type, "bench", "Set")
			for _, v := range vs.Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if se, ok := n.(*ast.SelectorExpr); ok && (isSelector(se, "bench", "NewSet") || isSelector(se, "all", "Set") || isSelector(se, "all", "Benchmarks")) {
						holds = true
					}
					return true
				})
			}
			if holds {
				for _, n := range vs.Names {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}

// packageVars are the package-level variables of f other than the blank
// interface assertions (var _ I = T{}).
func packageVars(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, s := range gd.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.Name != "_" {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

func isSelector(e ast.Expr, pkg, name string) bool {
	se, ok := e.(*ast.SelectorExpr)
	if !ok || se.Sel.Name != name {
		return false
	}
	id, ok := se.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// requireNoBenchmarkTestMain fails on a TestMain that builds or registers
// benchmarks: every test is handed the benchmark it plays.
func requireNoBenchmarkTestMain(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Name.Name != "TestMain" || fd.Recv != nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if se, ok := n.(*ast.SelectorExpr); ok && (strings.Contains(se.Sel.Name, "Benchmarks") || strings.HasPrefix(se.Sel.Name, "Register") ||
					isSelector(se, "bench", "NewSet") || isSelector(se, "all", "Set")) {
					t.Errorf("%s: TestMain sets benchmarks up (%s): hand each test the benchmark it plays", path, se.Sel.Name)
				}
				return true
			})
		}
		return nil
	})
	require.NoError(t, err)
}
