package sim

// ProducerEpochStart makes InitProducerId answer every new producer id with
// epoch e instead of 0, so a test reaches epoch exhaustion (32767) without
// bumping 32767 times. Negative values mean 0.
func ProducerEpochStart(e int16) Option {
	return func(c *config) { c.initEpoch = max(e, 0) }
}
