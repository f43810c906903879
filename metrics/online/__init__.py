"""Online evaluation: click logs (reading, validation) and A/B tests over them."""
