import { ApiError } from '../../common/errors';
import { erasureForms } from './erasure-target';

describe(erasureForms.name, () => {
  it('normalises a number like `to` and adds its stored forms', () => {
    expect(erasureForms('0501234567', 'SA')).toEqual(['+966501234567', '966501234567', '0501234567']);
    expect(erasureForms(' +966 50 123 4567 ', 'SA')).toEqual(['+966501234567', '966501234567', '+966 50 123 4567']);
    expect(erasureForms('+966501234567', 'SA')).toEqual(['+966501234567', '966501234567']);
  });

  it('lower-cases an email', () => {
    expect(erasureForms('Ana@Example.com', 'SA')).toEqual(['ana@example.com', 'Ana@Example.com']);
  });

  it('refuses what is neither', () => {
    expect(() => erasureForms('nobody', 'SA')).toThrow(ApiError);
    expect(() => erasureForms('12', 'SA')).toThrow('recipient must be a phone number or an email address');
  });
});
