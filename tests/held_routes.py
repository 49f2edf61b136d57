"""A Playwright route handler that holds back the first request it sees, so a test can act
while the page waits for that answer, then let it go; every later request passes at once."""


class HoldFirst:
    def __init__(self):
        self.held = []  # the first request's route, until the test continues it

    def __call__(self, route) -> None:
        if self.held:
            route.continue_()
        else:
            self.held.append(route)

    def release(self) -> None:
        assert len(self.held) == 1, "the first request never came"
        self.held[0].continue_()
