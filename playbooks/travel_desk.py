"""Tools of the travel desk playbook (travel_desk.yaml): trains and hotels.

The timetable and the hotels are a few made-up entries written for this example.
"""

from __future__ import annotations

TRAINS = {
    ("Lyon", "Turin"): ["07:12 (4h05, 39 EUR)", "13:40 (4h20, 52 EUR)"],
    ("Paris", "Lyon"): ["08:00 (1h56, 35 EUR)", "10:04 (1h58, 49 EUR)"],
}
HOTELS = {"Turin": ["Albergo Po (92 EUR)", "Casa Mole (120 EUR)"]}


def search_trains(origin: str, destination: str, date: str) -> str:
    """Trains from origin to destination on a date (YYYY-MM-DD)."""
    found = TRAINS.get((origin, destination))
    if not found:
        return f"No trains from {origin} to {destination} on {date}."
    return f"Trains {origin} -> {destination} on {date}: " + "; ".join(found)


def book_train(origin: str, destination: str, date: str, departure: str) -> str:
    """Book a seat on the train leaving at departure (HH:MM)."""
    return (
        f"Booked {origin} -> {destination} on {date} at {departure}. Reference TR-{departure[:2]}7."
    )


def search_hotels(city: str, nights: int) -> str:
    """Hotels with a free room in a city for a number of nights."""
    found = HOTELS.get(city)
    if not found:
        return f"No hotels in {city}."
    return f"Hotels in {city} for {nights} nights: " + "; ".join(found)
