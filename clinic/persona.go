package clinic

// Proficiency is the persona's language proficiency on three levels (basic,
// intermediate, advanced): fluent and an empty value read as advanced,
// limited as basic.
func (p Persona) Proficiency() string {
	switch p.Language {
	case "basic", "limited":
		return "basic"
	case "intermediate":
		return "intermediate"
	}
	return "advanced"
}

// Disoriented is the persona's cognitive disorientation on three levels
// (normal, moderate, high): Disorientation, or, where it is empty, Clarity
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

// Fidelity is the persona's anamnestic fidelity on two levels: low for a low
// recall, high otherwise (medium recall holds back less).
func (p Persona) Fidelity() string {
	if p.Recall == "low" {
		return "low"
	}
	return "high"
}
