package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/settings"
)

// command is one node of the CLI's command tree as the generated reference
// (docs/cli, kept current by cmd/clinevo's TestCLIDocsAreCurrent) gives it.
type command struct {
	children map[string]bool
	flags    map[string]bool // "--name" and "-n", its own and inherited: whether it takes a value
}

var (
	cliHeading = regexp.MustCompile(`(?m)^## (clinevo(?: [\w-]+)*)\s*$`)
	cliFlag    = regexp.MustCompile(`(?m)^\s+(?:(-\w), )?(--[\w-]+)( [a-zA-Z]+)?`)
)

// cliTree reads docs/cli into commands keyed by their path ("clinevo stream
// status").
func cliTree(t *testing.T) map[string]*command {
	t.Helper()
	files, err := filepath.Glob("cli/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files, "docs/cli holds the generated CLI reference")
	tree := map[string]*command{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		m := cliHeading.FindStringSubmatch(string(raw))
		require.NotNil(t, m, "%s: no '## clinevo ...' heading", f)
		c := &command{children: map[string]bool{}, flags: map[string]bool{}}
		for _, fm := range cliFlag.FindAllStringSubmatch(string(raw), -1) {
			c.flags[fm[2]] = fm[3] != ""
			if fm[1] != "" {
				c.flags[fm[1]] = fm[3] != ""
			}
		}
		tree[m[1]] = c
	}
	for path := range tree {
		if i := strings.LastIndexByte(path, ' '); i > 0 {
			require.Contains(t, tree, path[:i], "docs/cli has %q but not its parent", path)
			tree[path[:i]].children[path[i+1:]] = true
		}
	}
	return tree
}

var (
	fence      = regexp.MustCompile("(?s)```[^\n]*\n(.*?)```")
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
)

// commandLines are the code lines and inline code spans of a page that may
// name a clinevo command.
func commandLines(page string) []string {
	var out []string
	for _, m := range fence.FindAllStringSubmatch(page, -1) {
		out = append(out, strings.Split(m[1], "\n")...)
	}
	for _, m := range inlineCode.FindAllStringSubmatch(fence.ReplaceAllString(page, ""), -1) {
		out = append(out, m[1])
	}
	return out
}

// shellEnd ends the words of one command on a line.
func shellEnd(word string) bool {
	return slices.Contains([]string{"|", "||", "&&", ";", "&", ">", ">>", "2>", "2>&1", "<"}, word) || strings.HasPrefix(word, "#") ||
		strings.HasPrefix(word, ">") || strings.HasPrefix(word, "2>")
}

var commandWord = regexp.MustCompile(`^[a-z][a-z-]*$`)

// checkCommand checks the words after one "clinevo": the subcommands exist,
// and so does every flag on the command they name. Words after the first
// that is no subcommand are the command's arguments.
func checkCommand(tree map[string]*command, words []string) []string {
	path, args, value := "clinevo", false, false
	var problems []string
	for _, w := range words {
		if shellEnd(w) {
			break
		}
		c := tree[path]
		switch {
		case value: // the value of the flag before
			value = false
		case strings.HasPrefix(w, "-") && w != "-" && w != "--":
			name, _, hasValue := strings.Cut(w, "=")
			takes, ok := c.flags[name]
			if !ok {
				problems = append(problems, path+": no flag "+name)
			}
			value = takes && !hasValue
		case args:
		case c.children[w]:
			path += " " + w
		case len(c.children) > 0 && commandWord.MatchString(w):
			problems = append(problems, path+": no command "+w)
			args = true
		default:
			args = true
		}
	}
	return problems
}

// TestDocsNameOnlyCommandsAndFlagsTheCLIHas (issue 39 §5): every command and
// flag that a page's code blocks and inline code name after `clinevo` is in
// the CLI's command tree, as its generated reference (docs/cli) gives it.
func TestDocsNameOnlyCommandsAndFlagsTheCLIHas(t *testing.T) {
	tree := cliTree(t)
	var problems []string
	for _, rel := range pages(t) {
		if strings.HasPrefix(rel, "docs/cli/") {
			continue
		}
		for _, line := range commandLines(read(t, rel)) {
			code, _, _ := strings.Cut(line, " #")
			words := strings.Fields(code)
			for i, w := range words {
				if w != "clinevo" || (i > 0 && strings.HasPrefix(words[i-1], "-")) {
					continue
				}
				for _, p := range checkCommand(tree, words[i+1:]) {
					problems = append(problems, rel+": `"+strings.TrimSpace(line)+"`: "+p)
				}
			}
		}
	}
	require.Empty(t, problems)
}

// TestCheckCommand: the checker itself, on the tree docs/cli gives.
func TestCheckCommand(t *testing.T) {
	tree := cliTree(t)
	for line, want := range map[string][]string{
		"--config m.yaml stream start --run r1 --limit 50 --wait | tee out": nil,
		"stream status r1 --json":                         nil,
		"stream start --runs r1":                          {"clinevo stream start: no flag --runs"},
		"stream restrat r1":                               {"clinevo stream: no command restrat"},
		"restart r1 --limit 5":                            {"clinevo: no command restart", "clinevo: no flag --limit"},
		"experiment run spec.yaml --wait 2>&1 --nonsense": nil,
		"--log-level=debug dev --port 7233":               nil,
	} {
		require.Equal(t, want, checkCommand(tree, strings.Fields(line)), line)
	}
}

// TestDocsNameEveryRegisteredChoice (issue 39 §5): every learning method
// evolver.method accepts is on the methods page and the configuration page,
// every benchmark in the configuration page's profile row, and every corpus generator version on the corpora page, so a choice the
// code adds cannot stay undocumented.
func TestDocsNameEveryRegisteredChoice(t *testing.T) {
	methods, config, corpora := read(t, "docs/learning-methods.md"), read(t, "docs/configuration.md"), read(t, "docs/corpora.md")
	for _, m := range settings.Methods {
		require.Contains(t, methods, "| `"+m+"` |", "docs/learning-methods.md has no row of method %s", m)
		require.Contains(t, config, "`"+m+"`", "docs/configuration.md does not name method %s", m)
	}
	row := regexp.MustCompile("(?m)^\\| `profile` \\|.*$").FindString(config)
	set, err := all.Set()
	require.NoError(t, err)
	for _, b := range set.Names() {
		require.Contains(t, row, "`"+b+"`", "docs/configuration.md's profile row does not name benchmark %s", b)
	}
	for v := synth.V1; v <= synth.Latest; v++ {
		require.Contains(t, corpora, fmt.Sprintf("`clinevo-synth/%d`", v), "docs/corpora.md does not describe generator version %d", v)
		require.Contains(t, corpora, fmt.Sprintf("`builtin:v%d:", v), "docs/corpora.md gives no reference of generator version %d", v)
	}
}
