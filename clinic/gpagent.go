package clinic

import (
	"strings"
)

// The management pathways of a case (GPAgentBench §4 and C.2): diagnose and
// treat in primary care, or refer.
const (
	PathwayManage = "manage"
	PathwayRefer  = "refer"
)

// Pathways lists the management labels a case may carry.
var Pathways = []string{PathwayManage, PathwayRefer}

// Pathway is the case's ground-truth management label: ManagementLabel, or,
// where a corpus leaves it empty, refer when the referral is needed and manage
// when it is not; "" when the case says nothing about referral.
func (m ManagerView) Pathway() string {
	switch {
	case m.ManagementLabel != "":
		return m.ManagementLabel
	case m.Referral == nil:
		return ""
	case m.Referral.Needed:
		return PathwayRefer
	}
	return PathwayManage
}

// TreatmentReference is what a treatment plan is judged against: the
// ground-truth treatment, or the management key points where a corpus has none.
func (m ManagerView) TreatmentReference() []string {
	if len(m.Treatment) > 0 {
		return m.Treatment
	}
	return m.Management
}

// Destinations lists every referral destination that counts as correct.
func (r *Referral) Destinations() []string {
	if r == nil || r.Destination == "" {
		return nil
	}
	return append([]string{r.Destination}, r.Alternatives...)
}

// Name is an action's name in GPAgentBench's action format (appendix C.1:
// <action type="...">) and in settings episode.actions: lower case, and
// "test" for REQUEST_TEST.
func (k ActionKind) Name() string {
	if k == RequestTest {
		return "test"
	}
	return strings.ToLower(string(k))
}

// ActionNamed returns the action a name stands for: its Name or its kind, in
// any case and with surrounding space.
func ActionNamed(name string) (ActionKind, bool) {
	n := strings.TrimSpace(name)
	for _, k := range ActionKinds {
		if strings.EqualFold(n, k.Name()) || strings.EqualFold(n, string(k)) {
			return k, true
		}
	}
	return "", false
}

// Urgencies are a referral's urgency levels (GPAgentBench C.1).
var Urgencies = []string{"routine", "urgent", "emergency"}

// ParseUrgency reads an urgency in any case and with surrounding space;
// "emergent", as records write it (GPAgentBench A.2), is emergency. ok is
// false for anything else, returned lower-cased.
func ParseUrgency(u string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(u))
	if n == "emergent" {
		n = "emergency"
	}
	for _, x := range Urgencies {
		if n == x {
			return n, true
		}
	}
	return n, false
}

// ReferAction is a card's action for a referral: "REFER:<urgency>:<destination>".
func ReferAction(destination, urgency string) string {
	return string(Refer) + ":" + urgency + ":" + destination
}

// ParseReferAction reads a ReferAction; ok is false for any other action.
func ParseReferAction(action string) (destination, urgency string, ok bool) {
	rest, ok := strings.CutPrefix(action, string(Refer)+":")
	if !ok {
		return "", "", false
	}
	urgency, destination, ok = strings.Cut(rest, ":")
	return destination, urgency, ok && destination != ""
}

// ManageAction is a card's action that advises managing a presentation in
// primary care rather than referring it.
const ManageAction = "MANAGE"

// Scores.Metrics names that the trajectory export reads (analysis.Steps): a
// profile whose episode reward is not S reports it as MetricReward, and an
// episode-level safety cost as MetricSafetyCost (GPAgentBench §4.2: the
// reward R and the costs C_k of a constrained MDP).
const (
	MetricReward     = "reward"
	MetricSafetyCost = "cost_safety"
)

// Proficiency is the persona's language proficiency on GPAgentBench's three
// levels (§4.1): fluent and an empty value read as advanced, limited as basic.
func (p Persona) Proficiency() string {
	switch p.Language {
	case "basic", "limited":
		return "basic"
	case "intermediate":
		return "intermediate"
	}
	return "advanced"
}

// Disoriented is the persona's cognitive disorientation on GPAgentBench's
// three levels (§4.1): Disorientation, or, where it is empty, Clarity
// (confused reads as moderate).
func (p Persona) Disoriented() string {
	if p.Disorientation != "" {
		return p.Disorientation
	}
	if p.Clarity == "confused" {
		return "moderate"
	}
	return "normal"
}

// Fidelity is the persona's anamnestic fidelity on GPAgentBench's two levels
// (§4.1): low for a low recall, high otherwise (medium recall holds back less).
func (p Persona) Fidelity() string {
	if p.Recall == "low" {
		return "low"
	}
	return "high"
}
