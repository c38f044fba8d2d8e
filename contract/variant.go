package contract

// VariantSep joins a baseline condition's name and a variant's: a condition
// BASE@VARIANT (paired with BASE: a substituted patient, another step cap,
// the chart mode) or a run re-scored under another judge,
// <experiment>-BASE@VARIANT, is that variant of BASE, and a benchmark's
// report section compares every doctor's baseline with its variants.
const VariantSep = "@"

// VariantRunID is the run ID of a condition's variant.
func (e ExperimentSpec) VariantRunID(cond, variant string) string {
	return e.RunID(cond + VariantSep + variant)
}
