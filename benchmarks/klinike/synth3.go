package klinike

import (
	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
)

// The version 3 task set follows the paper's shape (KlinikeBench §2.2 and
// appendix C): 333 tasks, 283 train and 50 test, and of the test tasks 42 on a
// diagnosis no training task has (the paper: "Of its 50 tasks, 42 have a
// diagnosis that does not occur in the training set"). With a 46-row
// condition table the unseen diagnoses are whole conditions: UnseenConditionsV3
// rows, drawn by the seed, appear only in the test split, three tasks each;
// the other 8 test tasks and all 283 training tasks are on the remaining rows.
// Tasks expose 1 to 8 optional tools beside the required ones and
// record_diagnosis, from the whole registry (the paper: 3 to 24 a task,
// mean 10.7); the optional count is clinevo's choice.
const (
	SourceTasksV3      = "clinevo-synth/klinike-3"
	TasksV3            = 333
	TestSizeV3         = 50
	UnseenTestV3       = 42
	UnseenConditionsV3 = 14 // 42 unseen test tasks, three per condition
	maxOptionalV3      = 8
)

// TasksVersion3 generates the version 3 task set for a seed: the training
// tasks first, in whole permutations of the seen conditions (a stream in
// stages of their count meets each once a stage), then the test tasks in a
// seeded mixed order.
func TasksVersion3(seed uint64) map[string][]clinic.Case {
	g := synth.NewGenerator(seed)
	rows := len(synth.Conditions())
	unseen := map[int]bool{}
	for _, i := range g.Rand("klinike/v3/unseen").Perm(rows)[:UnseenConditionsV3] {
		unseen[i] = true
	}
	var seenRows, unseenRows []int
	for i := range rows {
		if unseen[i] {
			unseenRows = append(unseenRows, i)
		} else {
			seenRows = append(seenRows, i)
		}
	}
	perms := func(pool []int, purpose string, n int) []int {
		r := g.Rand("klinike/v3/order", purpose)
		var out []int
		for len(out) < n {
			for _, p := range r.Perm(len(pool)) {
				out = append(out, pool[p])
			}
		}
		return out[:n]
	}
	train := perms(seenRows, "train", TasksV3-TestSizeV3)
	test := append(perms(unseenRows, "test/unseen", UnseenTestV3), perms(seenRows, "test/seen", TestSizeV3-UnseenTestV3)...)
	g.Rand("klinike/v3/order", "test/mix").Shuffle(len(test), func(i, j int) { test[i], test[j] = test[j], test[i] })

	b := build{instance: "klinike-3", source: SourceTasksV3, tools: sandbox.Names(), maxOptional: maxOptionalV3}
	out := map[string][]clinic.Case{}
	for k, rows := range [][]int{train, test} {
		split := []string{SplitTrain, SplitTest}[k]
		for _, ci := range rows {
			c := task(g, ci, len(out[SplitAll])+1, b)
			out[SplitAll] = append(out[SplitAll], c)
			c.Meta.Split = split
			out[split] = append(out[split], c)
		}
	}
	return out
}
