"""fathom-ray: autonomous web research as a swarm of Ray actors. This package is the pure core."""
