package com.example.shop.inventory;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps stock levels and short-lived reservations ("soft holds") for the checkout.
 * A soft hold expires after HOLD_TTL so abandoned carts give their stock back.
 */
public final class InventoryService {

    private static final Duration HOLD_TTL = Duration.ofMinutes(15);

    private final Map<String, Integer> stock = new ConcurrentHashMap<>();
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();

    public void restock(String sku, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive");
        }
        stock.merge(sku, quantity, Integer::sum);
    }

    /** Reserves stock with a soft hold; returns the hold id, or empty when stock is short. */
    public Optional<String> reserveStock(String sku, int quantity) {
        releaseExpiredHolds();
        int available = stock.getOrDefault(sku, 0) - heldQuantity(sku);
        if (available < quantity) {
            return Optional.empty();
        }
        String holdId = sku + "-" + Instant.now().toEpochMilli();
        holds.put(holdId, new Hold(sku, quantity, Instant.now().plus(HOLD_TTL)));
        return Optional.of(holdId);
    }

    /** Turns a soft hold into a sale: the stock leaves the warehouse for good. */
    public boolean commitHold(String holdId) {
        Hold hold = holds.remove(holdId);
        if (hold == null || hold.expiresAt().isBefore(Instant.now())) {
            return false;
        }
        stock.computeIfPresent(hold.sku(), (k, v) -> v - hold.quantity());
        return true;
    }

    private int heldQuantity(String sku) {
        return holds.values().stream()
                .filter(h -> h.sku().equals(sku))
                .mapToInt(Hold::quantity)
                .sum();
    }

    private void releaseExpiredHolds() {
        Instant now = Instant.now();
        holds.values().removeIf(h -> h.expiresAt().isBefore(now));
    }

    private record Hold(String sku, int quantity, Instant expiresAt) {}
}
