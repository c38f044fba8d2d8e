package evolver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// EvoTest is evolutionary test-time learning (He, Liu, Liu, Li, Cao, Hu, Xu,
// Hooi 2025, "EvoTest: Evolutionary Test-Time Learning for Self-Improving
// Agentic Systems", arXiv 2510.13220; section not verified): after every
// episode an evolver agent reads the whole transcript and its
// transcript-level score, and proposes a revised configuration of the whole
// agent for the next episode: it rewrites the prompt, logs effective
// state–action choices into memory, tunes hyperparameters and learns
// tool-use routines; the configuration to evolve from is selected among
// those played by an upper confidence bound over their episode returns. It
// reads no per-action labels (EvoClinician §4, baseline 8:
// "transcript-level feedback").
//
// In clinevo the configuration is the rule book, the memory and the
// doctor's temperature. With the evolver role the model returns the complete
// new rule book (replacing the old one), the memories to log and optionally
// a temperature. The mechanical form rewrites the book from the transcript
// alone: after a passing episode, every question that was answered and every
// test that came back becomes a rule for presentations like this one
// (merged into a rule with the same action); after a failing one, the rules
// in force for this presentation are dropped (they did not help); a passing
// episode's state–action choices are logged as memory.
//
// Every episode scores the configuration it played (a node of the tree,
// EvoTestTree): the node's return is the mean S of its episodes; the parent
// is then selected by UCB over every node (EvoTestSelect), the child's rule
// book is evolved from the parent's book (not the latest one) and its
// hyperparameters by EvoTestHyper, and the child is what the next episode
// plays. The tree travels with the episode's proposal (Output.EvoTest,
// compact: a child's book is the proposal of the episode that made it,
// read back through Book), the temperature through Output.Temperature to
// the next episode's doctor. Episodes that only score (Defer: all but the
// last of an update batch, which played the same node) write their memories
// and leave the book and the tree's shape alone. Gap: tool-use routines are
// not evolved.
type EvoTest struct {
	Model Model
	// Tree is the search as of the episode before (nil: a new tree whose
	// root is the rule book the episode played, with hyperparameters Root).
	Tree *EvoTestTree
	Root Hyper
	// Book reads the rule book of the node the given episode evolved (the
	// rules of its stored proposal); nil: only the root can be a parent.
	Book func(ctx context.Context, episode int) ([]clinic.Rule, error)
	// Defer scores the played node without evolving a child.
	Defer bool
}

type evotestReply struct {
	Rules       []string   `json:"rules"`
	Memories    []mem0Fact `json:"memories"`
	Temperature *float64   `json:"temperature,omitempty"`
}

// Evolve scores the played configuration, selects the parent by UCB and
// rewrites the parent's configuration from the transcript (see EvoTest).
func (e EvoTest) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	tree := e.Tree.clone()
	if tree == nil {
		tree = &EvoTestTree{Nodes: []EvoTestNode{evotestNode(rules, e.Root, -1, 0)}}
	}
	if tree.Played < 0 || tree.Played >= len(tree.Nodes) {
		return Output{}, fmt.Errorf("evotest: tree plays node %d of %d", tree.Played, len(tree.Nodes))
	}
	p := &tree.Nodes[tree.Played]
	p.Return = (p.Return*float64(p.Plays) + in.Outcome.S) / float64(p.Plays+1) // the node's mean episode return
	p.Plays++
	parent, book := tree.Played, rules
	if !e.Defer {
		parent = EvoTestSelect(tree.Nodes)
		var err error
		if book, err = tree.book(ctx, parent, e.Book); err != nil {
			return Output{}, err
		}
	}
	req := struct {
		Presentation string
		Transcript   []string
		Rules        []string
		Budget       int
		Temperature  float64
	}{in.Opening, transcriptLines(in), ruleTexts(book), cfg.RuleBudget, tree.Nodes[parent].Hyper.Temperature}
	var reply evotestReply
	ok, err := ask(ctx, e.Model, "evotest_evolve", req, &reply)
	if err != nil {
		return Output{}, err
	}
	screen := NewScreen(cfg, in.Forbidden, truth)
	var out Output
	switch {
	case e.Defer:
		out.Rules = append([]clinic.Rule(nil), rules...)
	case ok:
		out.Rules, out.Edits, out.Skipped = rewrite(book, reply.Rules, in.Episode, cfg.RuleBudget, screen)
	default:
		out.Rules, out.Edits = evotestRules(cfg, in, book)
	}
	if !ok {
		reply.Memories, reply.Temperature = nil, nil
		if ask, tests := returned(in); in.Outcome.Pass && (len(ask) > 0 || len(tests) > 0) {
			reply.Memories = []mem0Fact{{Text: fmt.Sprintf("STATE %s | ACTIONS ask %s; tests %s | DIAGNOSIS %s", in.Opening, list(ask), list(tests), orNone(predicted(in))),
				Diagnosis: predicted(in), Ask: ask, Tests: tests}}
		}
	}
	if !e.Defer {
		if parent != tree.Played {
			out.Edits = append([]string{fmt.Sprintf("evotest parent node %d (episode %d) by UCB", parent, tree.Nodes[parent].Episode)}, out.Edits...)
		}
		h := EvoTestHyper(tree.Nodes[parent].Hyper, in.Outcome.Pass, reply.Temperature)
		tree.Nodes, tree.Played = EvoTestChild(tree.Nodes, parent, out.Rules, h)
		tree.Nodes[tree.Played].Episode = in.Episode
	}
	out.EvoTest = tree.compact()
	t := tree.Nodes[tree.Played].Hyper.Temperature
	out.Temperature = &t
	if in.WriteCards {
		var cs []clinic.Card
		for i, m := range reply.Memories {
			c := methodCard(in, clinic.CardAdvice, 4000+i, m.Text)
			c.Diagnosis, c.Avoid, c.Ask, c.Tests, c.Grade = m.Diagnosis, m.Avoid, m.Ask, m.Tests, string(grader.HighYield)
			cs = append(cs, c)
		}
		var skipped []string
		out.Cards, skipped = ScreenCards(cs, screen)
		out.Skipped = append(out.Skipped, skipped...)
	}
	return out, nil
}

// evotestRules is the mechanical rewrite of the rule book (see EvoTest).
func evotestRules(cfg settings.Evolver, in Input, rules []clinic.Rule) ([]clinic.Rule, []string) {
	if !cfg.Rules() {
		return nil, nil
	}
	when := strings.Join(ContextWords(in.Opening), " ")
	if !in.Outcome.Pass {
		opening := textmatch.Set(in.Opening)
		var kept []clinic.Rule
		var log []string
		for _, r := range rules {
			if d, ok := clinic.ParseRule(r.Text); ok && (d.When == "" || textmatch.Coverage(textmatch.Set(d.When), opening) >= 0.5) {
				log = append(log, "evotest drop "+r.ID)
				continue
			}
			kept = append(kept, r)
		}
		return kept, log
	}
	ask, tests := returned(in)
	var edits []Edit
	for _, t := range ask {
		edits = append(edits, Edit{Op: OpAdd, Text: ruleText(clinic.RuleDirective{Verb: clinic.VerbAsk, Target: t, When: when})})
	}
	for _, t := range tests {
		edits = append(edits, Edit{Op: OpAdd, Text: ruleText(clinic.RuleDirective{Verb: clinic.VerbTest, Target: t, When: when})})
	}
	out, log, _ := ApplyEdits(rules, edits, in.Episode, cfg, nil)
	return out, log
}

// rewrite replaces a rule book by a model's complete new one: a line the
// book held keeps its rule (ID, counters), a new line is a new rule; at
// most budget lines, each passing the screen.
func rewrite(rules []clinic.Rule, lines []string, episode, budget int, screen *Screen) (out []clinic.Rule, log, skipped []string) {
	byText := map[string]clinic.Rule{}
	for _, r := range rules {
		byText[catalog.Key(r.Text)] = r
	}
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || len(out) == budget {
			continue
		}
		if why := screen.Leaks(l); why != "" {
			skipped = append(skipped, "rule rejected: "+why)
			continue
		}
		if r, ok := byText[catalog.Key(l)]; ok {
			out = append(out, r)
			continue
		}
		id := fmt.Sprintf("r%d-%d", episode, i+1)
		out = append(out, clinic.Rule{ID: id, Text: l, Created: episode})
		log = append(log, "add "+id)
	}
	for _, r := range rules {
		if !containsRule(out, r.ID) {
			log = append(log, "retire "+r.ID)
		}
	}
	return out, log, skipped
}

func containsRule(rules []clinic.Rule, id string) bool {
	for _, r := range rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

func ruleTexts(rules []clinic.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Text
	}
	return out
}

// EvoTestNode is one configuration of EvoTest's search (He et al. 2025,
// arXiv 2510.13220; the definitions as the authors' reference
// implementation gives them, section not verified): the rule book and the
// hyperparameters the doctor played an episode with, the episode's return
// (S), and its place in the tree of configurations (each evolved from the
// parent UCB selected).
type EvoTestNode struct {
	// Rules is the node's rule book; stored (EvoTestTree.compact) for the
	// root alone: a child's is the rule book of the proposal of the
	// episode that evolved it (Episode).
	Rules   []clinic.Rule `json:"rules,omitempty"`
	RuleIDs []string      `json:"rule_ids"`
	Digest  string        `json:"digest"` // of the rule texts, in order
	Episode int           `json:"episode,omitempty"`
	Hyper   Hyper         `json:"hyper"`
	Return  float64       `json:"return"` // mean S of the episodes that played it
	Plays   int           `json:"plays,omitempty"`
	Parent  int           `json:"parent"` // -1: the first configuration
	Depth   int           `json:"depth"`
	// Children are the configurations evolved from it.
	Children int `json:"children"`
}

// EvoTestTree is EvoTest's search as of an episode: the configurations
// played or to play, and the one the next episode plays.
type EvoTestTree struct {
	Nodes  []EvoTestNode `json:"nodes"`
	Played int           `json:"played"`
}

func evotestNode(rules []clinic.Rule, h Hyper, parent, depth int) EvoTestNode {
	n := EvoTestNode{Rules: append([]clinic.Rule{}, rules...), RuleIDs: []string{}, Hyper: h, Parent: parent, Depth: depth}
	d := sha256.New()
	for _, r := range rules {
		n.RuleIDs = append(n.RuleIDs, r.ID)
		d.Write([]byte(r.Text + "\n"))
	}
	n.Digest = hex.EncodeToString(d.Sum(nil))[:16]
	return n
}

func (t *EvoTestTree) clone() *EvoTestTree {
	if t == nil {
		return nil
	}
	return &EvoTestTree{Nodes: append([]EvoTestNode(nil), t.Nodes...), Played: t.Played}
}

// compact is the tree as stored: the root's rule book alone.
func (t *EvoTestTree) compact() *EvoTestTree {
	c := t.clone()
	for i := range c.Nodes {
		if c.Nodes[i].Parent >= 0 {
			c.Nodes[i].Rules = nil
		}
	}
	return c
}

// book is node i's rule book: the root's own, a child's read through read
// and checked against the node's digest.
func (t *EvoTestTree) book(ctx context.Context, i int, read func(context.Context, int) ([]clinic.Rule, error)) ([]clinic.Rule, error) {
	n := t.Nodes[i]
	if n.Parent < 0 || n.Rules != nil {
		return append([]clinic.Rule(nil), n.Rules...), nil
	}
	if read == nil {
		return nil, fmt.Errorf("evotest: node %d (episode %d) has no stored rule book to read", i, n.Episode)
	}
	rules, err := read(ctx, n.Episode)
	if err != nil {
		return nil, fmt.Errorf("evotest: rule book of node %d (episode %d): %w", i, n.Episode, err)
	}
	if got := evotestNode(rules, n.Hyper, 0, 0).Digest; got != n.Digest {
		return nil, fmt.Errorf("evotest: rule book of node %d (episode %d) has digest %s, the tree recorded %s", i, n.Episode, got, n.Digest)
	}
	return rules, nil
}

// Hyper are the agent hyperparameters EvoTest evolves with the prompt: the
// doctor's sampling temperature.
type Hyper struct {
	Temperature float64 `json:"temperature"`
}

// EvoTest's UCB constants: the exploration weight c and the depth decay α
// (UCB = return + c·α^depth·√(ln N / (1 + children)), the form of the
// authors' reference implementation, yf-he/EvoTest src/our_agent.py
// calculate_ucb). α = 0.8 is that implementation's default (main.py
// --depth_constant); c = 0.5 is clinevo's own choice (its default 1.0
// weighs raw game points, clinevo's returns are S in [0, 1]). The paper's
// own values were not verified.
const (
	EvoTestC     = 0.5
	EvoTestAlpha = 0.8
)

// EvoTestUCB is node i's upper confidence bound: its episode return plus an
// exploration bonus that shrinks with the children already evolved from it
// and with its depth, N the number of configurations played (at least 2).
func EvoTestUCB(nodes []EvoTestNode, i int) float64 {
	n := max(2, len(nodes))
	nd := nodes[i]
	return nd.Return + EvoTestC*math.Pow(EvoTestAlpha, float64(nd.Depth))*math.Sqrt(math.Log(float64(n))/float64(1+nd.Children))
}

// EvoTestSelect is the configuration the next one is evolved from: the
// highest UCB, the earliest among equals.
func EvoTestSelect(nodes []EvoTestNode) int {
	best := 0
	for i := range nodes {
		if EvoTestUCB(nodes, i) > EvoTestUCB(nodes, best) {
			best = i
		}
	}
	return best
}

// EvoTestChild adds to the tree the configuration evolved from parent with
// the given rule book and hyperparameters, and returns its index (the next
// episode plays it; its return is set when that episode is scored).
func EvoTestChild(nodes []EvoTestNode, parent int, rules []clinic.Rule, h Hyper) ([]EvoTestNode, int) {
	nodes[parent].Children++
	nodes = append(nodes, evotestNode(rules, h, parent, nodes[parent].Depth+1))
	return nodes, len(nodes) - 1
}

// EvoTestHyper are the child's hyperparameters: the model's (clamped to
// [0, 1]) when it proposed a temperature, else the mechanical form's: the
// parent's after a passing episode, and after a failing one a step of 0.2
// away from it (down from above 0.5, up otherwise) so the next attempt
// samples differently; the step is clinevo's own choice.
func EvoTestHyper(parent Hyper, pass bool, proposed *float64) Hyper {
	if proposed != nil {
		return Hyper{Temperature: min(1, max(0, *proposed))}
	}
	if pass {
		return parent
	}
	if parent.Temperature > 0.5 {
		return Hyper{Temperature: parent.Temperature - 0.2}
	}
	return Hyper{Temperature: parent.Temperature + 0.2}
}
